{{/* The chart name, overridable, cut to the 63 characters a label value may hold. */}}
{{- define "genial.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The base name of every object: the release name, followed by the chart name unless the
release name already contains it (`helm install genial ...` gives `genial`, not
`genial-genial`). Cut to the 63 characters of a DNS label (a Service name).
*/}}
{{- define "genial.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/*
The chart's Redis. At most 52 characters: a StatefulSet labels its pods with its name and
an 11-character revision hash, and a label value holds 63.
*/}}
{{- define "genial.redisName" -}}
{{ include "genial.fullname" . | trunc 46 | trimSuffix "-" }}-redis
{{- end }}

{{- define "genial.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/name: {{ include "genial.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: genial
{{- end }}

{{/*
Selector labels carry the component, so that the workers' selectors (Service, PDB, topology
spread, NetworkPolicy) never match the development Redis pods and the other way round.
*/}}
{{- define "genial.workerSelectorLabels" -}}
app.kubernetes.io/name: {{ include "genial.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: worker
{{- end }}

{{- define "genial.redisSelectorLabels" -}}
app.kubernetes.io/name: {{ include "genial.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: redis
{{- end }}

{{- define "genial.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "genial.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* The worker image; a digest, when given, pins the exact image whatever the tag says. */}}
{{- define "genial.image" -}}
{{- $tag := default .Chart.AppVersion .Values.image.tag }}
{{- if .Values.image.digest }}
{{- printf "%s:%s@%s" .Values.image.repository $tag .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository $tag }}
{{- end }}
{{- end }}

{{/*
The seconds Kubernetes waits between asking a worker to stop and killing it: the preStop
pause, then the server's own drain (GENIAL_DRAIN_SECONDS), then a margin to close the
Redis connections and exit.
*/}}
{{- define "genial.terminationGracePeriod" -}}
{{- add .Values.shutdown.preStopSeconds .Values.settings.drainSeconds .Values.shutdown.exitMarginSeconds }}
{{- end }}

{{/*
A setting as an environment value. Helm reads every number in values as a float, which
prints as 1e+06 and would not parse as an int in the service: JSON prints it as 1000000.
*/}}
{{- define "genial.envValue" -}}
{{- if kindIs "string" . }}{{ . | quote }}{{ else }}{{ . | toJson | quote }}{{ end }}
{{- end }}
