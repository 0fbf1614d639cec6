{{- define "demarkus-world.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "demarkus-world.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else if contains (include "demarkus-world.name" .) .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name (include "demarkus-world.name" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "demarkus-world.worldName" -}}
{{- default (include "demarkus-world.fullname" .) .Values.world.name -}}
{{- end -}}

{{- define "demarkus-world.selectorLabels" -}}
app.kubernetes.io/name: {{ include "demarkus-world.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "demarkus-world.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "demarkus-world.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/component: world
app.kubernetes.io/part-of: demarkus
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{/*
The world server pod, and only it: what the NetworkPolicy and the Services
select. The StatefulSet's own selector (selectorLabels) is immutable and
narrower in nothing, so it cannot be changed; the pod template carries the
component label too.
*/}}
{{- define "demarkus-world.serverPodLabels" -}}
{{ include "demarkus-world.selectorLabels" . }}
app.kubernetes.io/component: world
{{- end -}}

{{/*
The token bootstrap hook's pod. Its name label differs from the world's so the
pod stays outside the StatefulSet's selector, which is the podSelector of the
NetworkPolicy earlier chart versions installed (egress: []): a pre-upgrade
hook runs while that policy is still in force, and inside it the Job could
not reach the API server.
*/}}
{{- define "demarkus-world.bootstrapPodLabels" -}}
app.kubernetes.io/name: {{ printf "%s-token-bootstrap" (include "demarkus-world.name" . | trunc 47 | trimSuffix "-") }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: token-bootstrap
app.kubernetes.io/part-of: demarkus
{{- end -}}

{{- define "demarkus-world.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "demarkus-world.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "demarkus-world.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}

{{- define "demarkus-world.tokensSecret" -}}
{{- default (printf "%s-tokens" (include "demarkus-world.fullname" .)) .Values.tokens.existingSecret -}}
{{- end -}}

{{- define "demarkus-world.tlsSecret" -}}
{{- default (printf "%s-tls" (include "demarkus-world.fullname" .)) .Values.tls.existingSecret -}}
{{- end -}}

{{/* DNS names the certificate must carry: the broker dials <service>.<namespace>.svc.<domain>. */}}
{{- define "demarkus-world.dnsNames" -}}
{{- $f := include "demarkus-world.fullname" . -}}
{{- $ns := .Release.Namespace -}}
{{- toJson (default (list $f (printf "%s.%s" $f $ns) (printf "%s.%s.svc" $f $ns) (printf "%s.%s.svc.%s" $f $ns .Values.tls.clusterDomain)) .Values.tls.certManager.dnsNames) -}}
{{- end -}}

{{/* The CLI probe: any answer from /health with status ok passes. */}}
{{- define "demarkus-world.probeCommand" -}}
exec:
  command: ["node", "/app/dist/cli/main.js", "mark", "fetch", {{ printf "mark://127.0.0.1:%v/health" .Values.server.udpPort | quote }}, "--insecure", "--timeout", "3000"]
{{- end -}}

{{- define "demarkus-world.validate" -}}
{{- $v := .Values -}}
{{- if ne (int $v.replicaCount) 1 -}}
{{- fail (printf "replicaCount must be 1, not %v: a world is one writer over one ReadWriteOnce volume" $v.replicaCount) -}}
{{- end -}}
{{- $name := include "demarkus-world.worldName" . -}}
{{- if not (regexMatch "^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$" $name) -}}
{{- fail (printf "world.name %q must be a DNS label (a-z, 0-9, \"-\", at most 63 characters): it is the mark:// authority clients use" $name) -}}
{{- end -}}
{{- if or (lt (int $v.server.udpPort) 1) (gt (int $v.server.udpPort) 65535) -}}
{{- fail (printf "server.udpPort %v must be between 1 and 65535" $v.server.udpPort) -}}
{{- end -}}
{{- if and $v.tls.existingSecret $v.tls.certManager.enabled -}}
{{- fail "tls: set existingSecret or certManager.enabled, not both" -}}
{{- end -}}
{{- if and (not $v.tokens.existingSecret) (not $v.tokens.bootstrap.enabled) -}}
{{- fail "the world needs a tokens Secret: set tokens.existingSecret, or keep tokens.bootstrap.enabled" -}}
{{- end -}}
{{- if not (regexMatch "^[A-Za-z0-9_-]+$" (toString $v.tokens.admin.label)) -}}
{{- fail (printf "tokens.admin.label %q must be letters, digits, \"_\" and \"-\"" (toString $v.tokens.admin.label)) -}}
{{- end -}}
{{- if not $v.tokens.admin.paths -}}
{{- fail "tokens.admin.paths must list at least one path pattern (e.g. \"/**\")" -}}
{{- end -}}
{{- range $v.tokens.admin.paths -}}
{{- if not (hasPrefix "/" .) -}}
{{- fail (printf "tokens.admin.paths entry %q must start with \"/\"" .) -}}
{{- end -}}
{{- end -}}
{{- if has "read" $v.tokens.admin.operations -}}
{{- fail "tokens.admin.operations must not include \"read\": a read token makes every read require a token, and the broker reads without one" -}}
{{- end -}}
{{- if and (not $v.tokens.emitRawValues) (not $v.tokens.admin.existingSecretRef.name) $v.tokens.bootstrap.enabled -}}
{{- fail "tokens.emitRawValues: false needs tokens.admin.existingSecretRef: otherwise the admin token would be minted and kept nowhere" -}}
{{- end -}}
{{- if and $v.world.publicURL (not (regexMatch "^mark://[^/?#@ ]+/?$" $v.world.publicURL)) -}}
{{- fail (printf "world.publicURL %q must be a mark://host[:port] URL" $v.world.publicURL) -}}
{{- end -}}
{{- if not $v.storage.size -}}
{{- fail "storage.size is required (e.g. 5Gi)" -}}
{{- end -}}
{{- end -}}
