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

{{/*
The admin Service (health, readiness, metrics): 57 characters and "-admin" fit a DNS label.
*/}}
{{- define "genial.adminName" -}}
{{ include "genial.fullname" . | trunc 57 | trimSuffix "-" }}-admin
{{- end }}

{{/* Labels of every object: the pods' own, and the chart's version. */}}
{{- define "genial.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "genial.podLabels" . }}
{{- end }}

{{/*
Labels of the pods: no chart version, so that a chart release that leaves a pod template
alone leaves its pods running. The app version stays: it moves with the default image.
*/}}
{{- define "genial.podLabels" -}}
app.kubernetes.io/name: {{ include "genial.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: genial
{{- end }}

{{/*
Selector labels carry the component, so that the workers' selectors (Service, PDB, topology
spread, NetworkPolicy) never match the development Redis pods and the other way round.
Called with (list $ "worker"), (list $ "redis"), ...
*/}}
{{- define "genial.selectorLabels" -}}
{{- $ctx := index . 0 -}}
app.kubernetes.io/name: {{ include "genial.name" $ctx }}
app.kubernetes.io/instance: {{ $ctx.Release.Name }}
app.kubernetes.io/component: {{ index . 1 }}
{{- end }}

{{- define "genial.workerSelectorLabels" -}}
{{ include "genial.selectorLabels" (list . "worker") }}
{{- end }}

{{- define "genial.redisSelectorLabels" -}}
{{ include "genial.selectorLabels" (list . "redis") }}
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
A list is comma-separated, as the service reads one.
*/}}
{{- define "genial.envValue" -}}
{{- if kindIs "string" . }}{{ . | quote }}
{{- else if kindIs "slice" . }}{{ join "," . | quote }}
{{- else }}{{ . | toJson | quote }}{{ end }}
{{- end }}

{{/* appProtocol of a Service port: the value given, or what the port speaks. */}}
{{- define "genial.appProtocol" -}}
{{- $ctx := index . 0 }}{{ $port := index . 1 }}
{{- $given := index $ctx.Values.service (printf "%sAppProtocol" $port) }}
{{- if $given }}{{ $given }}
{{- else if $ctx.Values.tls.enabled }}https
{{- else if eq $port "grpc" }}kubernetes.io/h2c
{{- else }}http
{{- end }}
{{- end }}

{{/* Where the TLS Secret is mounted in the worker. */}}
{{- define "genial.tlsDir" -}}
/etc/genial/tls
{{- end }}

{{/*
The Prometheus selector of this release's series, as the ServiceMonitor's scrape labels
them (job: the admin Service's name): the alerts look at these workers only.
*/}}
{{- define "genial.seriesSelector" -}}
namespace="{{ .Release.Namespace }}",job="{{ include "genial.adminName" . }}"
{{- end }}
