"""Where the chart and its files are, and the release the tests render it as."""

from __future__ import annotations

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
CHART = ROOT / "helm" / "genial"
PRODUCTION_VALUES = ROOT / "helm" / "values-production.yaml"
DEPLOY_DOC = ROOT / "docs" / "deploy.md"
CHART_META = yaml.safe_load((CHART / "Chart.yaml").read_text())
DEFAULTS = yaml.safe_load((CHART / "values.yaml").read_text())
RELEASE = "genial"
NAMESPACE = "games"
