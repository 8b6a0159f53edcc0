{{/* Names: every object is <fullname>-<part>, so two releases in one namespace never share a name. */}}
{{- define "routinely.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The release's prefix, kept to 40 characters so "-integration" or "-postgresql" still fits in 63. */}}
{{- define "routinely.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 40 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 40 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 40 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "routinely.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Selector labels of one component: (dict "root" $ "component" "auth"). */}}
{{- define "routinely.selectorLabels" -}}
app.kubernetes.io/name: {{ include "routinely.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{/* Standard labels of one component: (dict "root" $ "component" "auth"). */}}
{{- define "routinely.labels" -}}
helm.sh/chart: {{ include "routinely.chart" .root }}
{{ include "routinely.selectorLabels" . }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
app.kubernetes.io/part-of: routinely
{{- end }}

{{/* The six services, in the order the chart renders them. */}}
{{- define "routinely.serviceNames" -}}
auth calendar task scheduler integration delivery
{{- end }}

{{/* The services whose gRPC address every pod is given (<SVC>_GRPC_ADDRESS): the scheduler serves no gRPC (ADR 056). */}}
{{- define "routinely.grpcPeerNames" -}}
auth calendar task integration delivery
{{- end }}

{{/* Selects the pods of the six services of this release (NetworkPolicy peers). */}}
{{- define "routinely.servicePodSelector" -}}
matchLabels:
  app.kubernetes.io/name: {{ include "routinely.name" . }}
  app.kubernetes.io/instance: {{ .Release.Name }}
matchExpressions:
  - key: app.kubernetes.io/component
    operator: In
    values: [{{ include "routinely.serviceNames" . | splitList " " | join ", " }}]
{{- end }}

{{/* Selects the pods of one component of this release: (dict "root" $ "component" "envoy"). */}}
{{- define "routinely.componentPodSelector" -}}
matchLabels:
  {{- include "routinely.selectorLabels" . | nindent 2 }}
{{- end }}

{{- define "routinely.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "routinely.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* The application image: a digest wins over the tag; the tag defaults to the chart's appVersion. */}}
{{- define "routinely.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}
{{- end }}

{{/*
Where migrations run: job (a pre-install/pre-upgrade hook), initContainer (each pod, under a lock per schema)
or startup (the service itself, under the same lock). "auto" is job, or initContainer with the in-cluster
PostgreSQL, which a pre-install hook would run before.
*/}}
{{- define "routinely.migrationMode" -}}
{{- if eq .Values.migrations.mode "auto" }}
{{- ternary "initContainer" "job" .Values.inCluster.enabled }}
{{- else }}
{{- .Values.migrations.mode }}
{{- end }}
{{- end }}

{{/*
Environment of one service container: (dict "root" $ "name" "auth" "svc" $svc); "svc" may be empty (the
migration Job). Chart-wired values win over the service's env, which wins over the shared config; empty
values are left out (the service's own default applies); a name read from the Secret is never also plain.
*/}}
{{- define "routinely.env" -}}
{{- $root := .root }}
{{- $fullname := include "routinely.fullname" $root }}
{{- $wired := dict
  "PORT" (toString $root.Values.ports.http) "HOST" "0.0.0.0"
  "GRPC_PORT" (toString $root.Values.ports.grpc) "GRPC_HOST" "0.0.0.0"
  "OTEL_SERVICE_NAME" (printf "routinely-%s" .name)
  "MIGRATE_ON_START" (ternary "true" "false" (eq (include "routinely.migrationMode" $root) "startup")) }}
{{- range $peer := include "routinely.grpcPeerNames" $root | splitList " " }}
{{- $_ := set $wired (printf "%s_GRPC_ADDRESS" (upper $peer)) (printf "%s-%s:%v" $fullname $peer $root.Values.ports.grpc) }}
{{- end }}
{{- if $root.Values.tracing.otlpEndpoint }}
{{- $_ := set $wired "OTEL_EXPORTER_OTLP_ENDPOINT" $root.Values.tracing.otlpEndpoint }}
{{- end }}
{{- if $root.Values.inCluster.enabled }}
{{- $_ := set $wired "NATS_URL" (printf "nats://%s-nats:4222" $fullname) }}
{{- $_ := set $wired "REDIS_URL" (printf "redis://%s-redis:6379" $fullname) }}
{{- end }}
{{- $serviceEnv := dict }}
{{- $optional := deepCopy ($root.Values.secrets.optional | default dict) }}
{{- if .svc }}
{{- $serviceEnv = .svc.env | default dict }}
{{- range $key, $value := .svc.secretEnv | default dict }}{{ $_ := set $optional $key $value }}{{ end }}
{{- end }}
{{- $secretNames := concat (keys $root.Values.secrets.shared) (keys $optional) }}
{{- $env := deepCopy $root.Values.config }}
{{- range $key, $value := $serviceEnv }}{{ $_ := set $env $key $value }}{{ end }}
{{- range $key, $value := $wired }}{{ $_ := set $env $key $value }}{{ end }}
{{- range $key := keys $env | sortAlpha }}
{{- $value := toString (get $env $key) }}
{{- if and (ne $value "") (not (has $key $secretNames)) }}
- name: {{ $key }}
  value: {{ $value | quote }}
{{- end }}
{{- end }}
{{- range $key := keys $root.Values.secrets.shared | sortAlpha }}
- name: {{ $key }}
  valueFrom:
    secretKeyRef:
      name: {{ $root.Values.secrets.existingSecret }}
      key: {{ get $root.Values.secrets.shared $key }}
{{- end }}
{{- range $key := keys $optional | sortAlpha }}
- name: {{ $key }}
  valueFrom:
    secretKeyRef:
      name: {{ $root.Values.secrets.existingSecret }}
      key: {{ get $optional $key }}
      optional: true
{{- end }}
{{- end }}

{{/* The security context of every container the chart runs. */}}
{{- define "routinely.containerSecurityContext" -}}
securityContext:
  {{- toYaml .Values.securityContext | nindent 2 }}
{{- end }}

{{/* Fails the render when a distributed install would fall back to in-process stand-ins. */}}
{{- define "routinely.validate" -}}
{{- if not .Values.inCluster.enabled }}
{{- range $name := list "NATS_URL" "REDIS_URL" }}
{{- if not (or (get $.Values.config $name) (hasKey $.Values.secrets.shared $name)) }}
{{- fail (printf "%s is required (config.%s, or secrets.shared.%s when it holds a password): six processes cannot share in-process events, rate limits and revocations. For kind and development set inCluster.enabled=true." $name $name $name) }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}
