{{/* Names and labels. */}}
{{- define "demarkus-broker.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "demarkus-broker.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else if contains (include "demarkus-broker.name" .) .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name (include "demarkus-broker.name" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "demarkus-broker.selectorLabels" -}}
app.kubernetes.io/name: {{ include "demarkus-broker.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* Labels of every object of the release, but for app.kubernetes.io/component. */}}
{{- define "demarkus-broker.releaseLabels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "demarkus-broker.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/part-of: demarkus
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{- define "demarkus-broker.labels" -}}
{{ include "demarkus-broker.releaseLabels" . }}
app.kubernetes.io/component: broker
{{- end -}}

{{/*
The serving pods, and only them: what the Service, the NetworkPolicy, the
PodDisruptionBudget and the spread constraints select. The Deployment's own
selector (selectorLabels) is immutable, so it stays as it was; its pod
template carries the component label too. Requiring the component also leaves
out crawl pods of earlier chart versions, kept by the Jobs' history limits.
*/}}
{{- define "demarkus-broker.servingPodLabels" -}}
{{ include "demarkus-broker.selectorLabels" . }}
app.kubernetes.io/component: broker
{{- end -}}

{{/*
The crawl CronJob's pods. Their name label differs from the broker's so they
stay outside the Deployment's selector: the HorizontalPodAutoscaler averages
over every pod that selector matches, whoever owns it, and a selected Job pod
made the PodDisruptionBudget fail (a Job has no scale subresource).
*/}}
{{- define "demarkus-broker.crawlPodLabels" -}}
app.kubernetes.io/name: {{ printf "%s-crawl" (include "demarkus-broker.name" . | trunc 57 | trimSuffix "-") }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: crawl
app.kubernetes.io/part-of: demarkus
{{- end -}}

{{- define "demarkus-broker.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "demarkus-broker.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "demarkus-broker.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}

{{- define "demarkus-broker.brokerNamespace" -}}
{{- default .Release.Namespace .Values.server.brokerNamespace -}}
{{- end -}}

{{- define "demarkus-broker.refreshTokensSecret" -}}
{{- default (printf "%s-refresh-tokens" (include "demarkus-broker.fullname" .)) .Values.server.refreshTokensSecret -}}
{{- end -}}

{{/* The MCP port, from server.mcp.addr (":8081" or "0.0.0.0:8081"). */}}
{{- define "demarkus-broker.mcpPort" -}}
{{- $port := splitList ":" (toString .Values.server.mcp.addr) | last -}}
{{- if not (regexMatch "^[0-9]{1,5}$" $port) -}}
{{- fail (printf "server.mcp.addr %q must end in :<port> (as \":8081\")" (toString .Values.server.mcp.addr)) -}}
{{- end -}}
{{- if or (lt (atoi $port) 1) (gt (atoi $port) 65535) -}}
{{- fail (printf "server.mcp.addr port %s must be between 1 and 65535" $port) -}}
{{- end -}}
{{- $port -}}
{{- end -}}

{{/*
Worlds with the chart's defaults filled in, as a JSON list:
namespace → name, tokensSecret → <name>-tokens, defaultToken.paths → ["/**"].
*/}}
{{- define "demarkus-broker.worlds" -}}
{{- $out := list -}}
{{- range $i, $w := .Values.worlds -}}
{{- $allow := default dict $w.allow -}}
{{- $token := default dict $w.defaultToken -}}
{{- $world := dict "name" $w.name "namespace" (default $w.name $w.namespace) "tokensSecret" (default (printf "%s-tokens" $w.name) $w.tokensSecret) "publicURL" (default "" $w.publicURL) "internalAddress" (default "" $w.internalAddress) "serverName" (default "" $w.serverName) "allow" (dict "domains" (default list $allow.domains) "groups" (default list $allow.groups) "emails" (default list $allow.emails)) "defaultToken" (dict "paths" (default (list "/**") $token.paths)) -}}
{{- $out = append $out $world -}}
{{- end -}}
{{- toJson $out -}}
{{- end -}}

{{/*
The replica counts, with a key removed from values (null, how Helm removes
one) read as Kubernetes reads the field left unset: a Deployment's replicas
and an HPA's minReplicas default to 1 (apps/v1 DeploymentSpec,
autoscaling/v2 HorizontalPodAutoscalerSpec). `int` alone made them 0, so a
removed replicaCount rendered `replicas: null` beside maxUnavailable 1 and a
rollout took the one pod down. An HPA's maxReplicas has no default:
"demarkus-broker.validate" refuses a removed one. As "demarkus-broker.count" in _config.tpl.
*/}}
{{- define "demarkus-broker.replicaCount" -}}
{{- if kindIs "invalid" .Values.replicaCount -}}1{{- else -}}{{- int .Values.replicaCount -}}{{- end -}}
{{- end -}}

{{- define "demarkus-broker.minReplicas" -}}
{{- if kindIs "invalid" .Values.autoscaling.minReplicas -}}1{{- else -}}{{- int .Values.autoscaling.minReplicas -}}{{- end -}}
{{- end -}}

{{/* Render-time guards: impossible values stop `helm install` with a message naming the key. */}}
{{- define "demarkus-broker.validate" -}}
{{- $v := .Values -}}
{{- if not $v.server.publicURL -}}
{{- fail "server.publicURL is required: the broker's external base URL, e.g. https://broker.example.com" -}}
{{- end -}}
{{- if not (regexMatch "^https?://[^/?#]+" $v.server.publicURL) -}}
{{- fail (printf "server.publicURL %q must be an absolute http(s) URL" $v.server.publicURL) -}}
{{- end -}}
{{- if or (lt (int $v.server.port) 1) (gt (int $v.server.port) 65535) -}}
{{- fail (printf "server.port %v must be between 1 and 65535" $v.server.port) -}}
{{- end -}}
{{- if eq (include "demarkus-broker.mcpPort" .) (toString $v.server.port) -}}
{{- fail (printf "server.mcp.addr %q and server.port %v are the same port; the MCP and issuer listeners need two" $v.server.mcp.addr $v.server.port) -}}
{{- end -}}
{{- if or (lt (int $v.server.management.port) 1) (gt (int $v.server.management.port) 65535) -}}
{{- fail (printf "server.management.port %v must be between 1 and 65535" $v.server.management.port) -}}
{{- end -}}
{{- if has (toString $v.server.management.port) (list (toString $v.server.port) (include "demarkus-broker.mcpPort" .)) -}}
{{- fail (printf "server.management.port %v must differ from server.port (%v) and the port of server.mcp.addr (%s): health and metrics have a listener of their own, which the Ingress never routes" $v.server.management.port $v.server.port (include "demarkus-broker.mcpPort" .)) -}}
{{- end -}}
{{- if and $v.oidc.brokerSigningKey $v.oidc.existingSigningKeyRef.name -}}
{{- fail "set oidc.brokerSigningKey or oidc.existingSigningKeyRef.name, not both" -}}
{{- end -}}
{{- if not (or $v.oidc.brokerSigningKey $v.oidc.existingSigningKeyRef.name) -}}
{{- fail "a signing key is required: set oidc.existingSigningKeyRef.name (a Secret holding an EC P-256 PEM) or oidc.brokerSigningKey" -}}
{{- end -}}
{{- if and $v.oidc.existingSigningKeyRef.name (not $v.oidc.existingSigningKeyRef.key) -}}
{{- fail "oidc.existingSigningKeyRef.key is required when oidc.existingSigningKeyRef.name is set" -}}
{{- end -}}
{{- if and $v.oidc.clientSecret $v.oidc.existingSecretRef.name -}}
{{- fail "set oidc.clientSecret or oidc.existingSecretRef.name, not both" -}}
{{- end -}}
{{- if and $v.oidc.existingSecretRef.name (not $v.oidc.existingSecretRef.key) -}}
{{- fail "oidc.existingSecretRef.key is required when oidc.existingSecretRef.name is set" -}}
{{- end -}}
{{- if and (or $v.oidc.clientID $v.oidc.clientSecret $v.oidc.existingSecretRef.name $v.oidc.redirectURL) (not $v.oidc.issuer) -}}
{{- fail "oidc.issuer is required when oidc.clientID, a client secret or oidc.redirectURL is set" -}}
{{- end -}}
{{- if and $v.oidc.issuer (not $v.oidc.clientID) -}}
{{- fail "oidc.clientID is required when oidc.issuer is set" -}}
{{- end -}}
{{- if and $v.worldDialer.insecureSkipVerify $v.worldDialer.caSecretRef.name -}}
{{- fail "worldDialer.caSecretRef and worldDialer.insecureSkipVerify contradict each other: verify with the CA, or not at all" -}}
{{- end -}}
{{- if and (not $v.worlds) (not $v.discovery.enabled) -}}
{{- fail "at least one world is required in worlds[] (or enable discovery.enabled)" -}}
{{- end -}}
{{- $seen := dict -}}
{{- range $i, $w := $v.worlds -}}
{{- if not $w.name -}}
{{- fail (printf "worlds[%d].name is required" $i) -}}
{{- end -}}
{{- if not (regexMatch "^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$" $w.name) -}}
{{- fail (printf "worlds[%d].name %q must be a DNS label (a-z, 0-9, \"-\", at most 63 characters): it is the mark:// authority and part of Secret names" $i $w.name) -}}
{{- end -}}
{{- if hasKey $seen $w.name -}}
{{- fail (printf "worlds[%d].name %q is a duplicate" $i $w.name) -}}
{{- end -}}
{{- $_ := set $seen $w.name true -}}
{{- if and $w.defaultToken (hasKey $w.defaultToken "paths") (not $w.defaultToken.paths) -}}
{{- fail (printf "worlds[%d].defaultToken.paths must list at least one path pattern (e.g. \"/**\")" $i) -}}
{{- end -}}
{{- if and $w.internalAddress (not (regexMatch "^[^:]+:[0-9]{1,5}$|^\\[[0-9a-fA-F:]+\\]:[0-9]{1,5}$" $w.internalAddress)) -}}
{{- fail (printf "worlds[%d].internalAddress %q must be host:port" $i $w.internalAddress) -}}
{{- end -}}
{{- end -}}
{{- if $v.ingress.enabled -}}
{{- if not $v.ingress.host -}}
{{- fail "ingress.host is required when ingress.enabled (the issuer host, e.g. broker.example.com)" -}}
{{- end -}}
{{- if eq $v.ingress.host $v.ingress.mcp.host -}}
{{- fail (printf "ingress.mcp.host must differ from ingress.host (%q): the issuer and the MCP gateway are two hosts" $v.ingress.host) -}}
{{- end -}}
{{- if and $v.ingress.tls.existingSecret $v.ingress.tls.certManager.enabled -}}
{{- fail "ingress.tls: set existingSecret or certManager.enabled, not both" -}}
{{- end -}}
{{- if and $v.ingress.mcp.tls.existingSecret $v.ingress.mcp.tls.certManager.enabled -}}
{{- fail "ingress.mcp.tls: set existingSecret or certManager.enabled, not both" -}}
{{- end -}}
{{- end -}}
{{- if $v.autoscaling.enabled -}}
{{- if kindIs "invalid" $v.autoscaling.maxReplicas -}}
{{- fail "autoscaling.maxReplicas is required when autoscaling.enabled: Kubernetes gives an HPA no ceiling of its own" -}}
{{- end -}}
{{- $minReplicas := int (include "demarkus-broker.minReplicas" .) -}}
{{- if gt $minReplicas (int $v.autoscaling.maxReplicas) -}}
{{- fail (printf "autoscaling.minReplicas (%d) must not exceed autoscaling.maxReplicas (%v)" $minReplicas $v.autoscaling.maxReplicas) -}}
{{- end -}}
{{- if lt $minReplicas 1 -}}
{{- fail "autoscaling.minReplicas must be at least 1" -}}
{{- end -}}
{{- if not (or $v.autoscaling.targetCPUUtilizationPercentage $v.autoscaling.targetMemoryUtilizationPercentage) -}}
{{- fail "autoscaling needs targetCPUUtilizationPercentage or targetMemoryUtilizationPercentage" -}}
{{- end -}}
{{- end -}}
{{- if $v.podDisruptionBudget.enabled -}}
{{- $min := toString $v.podDisruptionBudget.minAvailable -}}
{{- $max := toString $v.podDisruptionBudget.maxUnavailable -}}
{{- if and $min $max -}}
{{- fail "podDisruptionBudget: set minAvailable or maxUnavailable, not both" -}}
{{- end -}}
{{- if not (or $min $max) -}}
{{- fail "podDisruptionBudget: set minAvailable or maxUnavailable" -}}
{{- end -}}
{{- $floor := int (ternary (include "demarkus-broker.minReplicas" .) (include "demarkus-broker.replicaCount" .) $v.autoscaling.enabled) -}}
{{- if and $min (regexMatch "^[0-9]+$" $min) (ge (atoi $min) $floor) -}}
{{- fail (printf "podDisruptionBudget.minAvailable (%s) must be below the replica count (%d), or no pod could ever be evicted and node drains would hang" $min $floor) -}}
{{- end -}}
{{- end -}}
{{- if and $v.metrics.serviceMonitor.enabled (not $v.metrics.enabled) -}}
{{- fail "metrics.serviceMonitor.enabled needs metrics.enabled" -}}
{{- end -}}
{{- /*
The NetworkPolicy admits scrapes only from networkPolicy.metricsFromNamespace (networkpolicy.yaml):
with it empty, Prometheus's scrapes are dropped and the target just shows down, with no error anywhere.
*/ -}}
{{- if and $v.metrics.serviceMonitor.enabled $v.networkPolicy.enabled (not $v.networkPolicy.metricsFromNamespace) -}}
{{- fail "metrics.serviceMonitor.enabled with networkPolicy.enabled needs networkPolicy.metricsFromNamespace (the namespace Prometheus runs in, e.g. monitoring): without it the NetworkPolicy drops every scrape" -}}
{{- end -}}
{{- if and $v.crawl.enabled (not $v.crawl.schedule) -}}
{{- fail "crawl.schedule is required when crawl.enabled (a cron expression)" -}}
{{- end -}}
{{- /*
The crawl walks and publishes through the worlds of the config only (src/cli/crawl-command.ts
opens no discovery; src/broker/graph/federation/federation-crawl.ts refuses a hub outside them),
so a hub that is not in worlds[] would make the CronJob fail every run.
*/ -}}
{{- if $v.crawl.enabled -}}
{{- $names := list -}}
{{- range $v.worlds -}}
{{- $names = append $names .name -}}
{{- end -}}
{{- if not (has $v.crawl.hub $names) -}}
{{- fail (printf "crawl.hub %q is not among worlds[].name (%s): the crawl publishes to the hub with the write token the broker holds for each world in worlds[], so every run would fail; add a world named %q to worlds[], set crawl.hub to a configured world, or set crawl.enabled=false" $v.crawl.hub (default "none configured" (join ", " $names)) $v.crawl.hub) -}}
{{- end -}}
{{- end -}}
{{- $replicas := int (include "demarkus-broker.replicaCount" .) -}}
{{- if and (or $v.autoscaling.enabled (gt $replicas 1)) (not (include "demarkus-broker.redisEnabled" .)) -}}
{{- fail (printf "%s needs redis.url or redis.sentinel: device grants, authorization codes and rate limits must be shared by every replica, or a sign-in started on one pod fails on the next (docs/operations.md, \"Scale the broker\")" (ternary "autoscaling.enabled" (printf "replicaCount %d" $replicas) $v.autoscaling.enabled)) -}}
{{- end -}}
{{- if and $v.redis.url (not (regexMatch "^rediss?://([^/@:\\[\\]]+|\\[[0-9a-fA-F:]+\\])(:[0-9]+)?(/[0-9]{0,2})?$" $v.redis.url)) -}}
{{- fail (printf "redis.url %q must be redis://host[:port][/db] or rediss://… without credentials (the password comes from redis.existingSecret)" $v.redis.url) -}}
{{- end -}}
{{- if and $v.redis.sentinel.masterName (not $v.redis.sentinel.nodes) -}}
{{- fail "redis.sentinel.nodes must list at least one sentinel (host:port) when redis.sentinel.masterName is set" -}}
{{- end -}}
{{- if and $v.redis.existingSecret.name (not $v.redis.existingSecret.key) -}}
{{- fail "redis.existingSecret.key is required when redis.existingSecret.name is set" -}}
{{- end -}}
{{- if and $v.redis.sentinel.existingSecret.name (not $v.redis.sentinel.masterName) -}}
{{- fail "redis.sentinel.existingSecret is the sentinels' password: it needs redis.sentinel.masterName and nodes" -}}
{{- end -}}
{{- if and $v.redis.sentinel.existingSecret.name (not $v.redis.sentinel.existingSecret.key) -}}
{{- fail "redis.sentinel.existingSecret.key is required when redis.sentinel.existingSecret.name is set" -}}
{{- end -}}
{{- if and $v.server.cookieKey $v.server.existingCookieKeyRef.name -}}
{{- fail "set server.cookieKey or server.existingCookieKeyRef.name, not both" -}}
{{- end -}}
{{- if and $v.server.existingCookieKeyRef.name (not $v.server.existingCookieKeyRef.key) -}}
{{- fail "server.existingCookieKeyRef.key is required when server.existingCookieKeyRef.name is set" -}}
{{- end -}}
{{- if and $v.oidc.existingNextSigningKeyRef.name (not $v.oidc.existingNextSigningKeyRef.key) -}}
{{- fail "oidc.existingNextSigningKeyRef.key is required when oidc.existingNextSigningKeyRef.name is set" -}}
{{- end -}}
{{- end -}}

{{/*
The cookie key: the value given, else (with server.existingCookieKeyRef) none
here, as the broker reads it from that Secret, else the one stored by an
earlier install, else a new one. "settle" fixes it once per render (in
.Values), so the config Secret and the Deployment's checksum see the same key.
`lookup` finds nothing under `helm template`, so GitOps renders must set
server.cookieKey or the reference (docs/operations.md, "Install").
*/}}
{{- define "demarkus-broker.settle" -}}
{{- if not (or .Values.server.cookieKey .Values.server.existingCookieKeyRef.name) -}}
{{- $_ := set .Values.server "cookieKey" (include "demarkus-broker.newOrStoredCookieKey" .) -}}
{{- end -}}
{{- end -}}

{{- define "demarkus-broker.cookieKey" -}}
{{- include "demarkus-broker.settle" . -}}
{{- .Values.server.cookieKey -}}
{{- end -}}

{{- define "demarkus-broker.newOrStoredCookieKey" -}}
{{- $existing := lookup "v1" "Secret" .Release.Namespace (printf "%s-config" (include "demarkus-broker.fullname" .)) -}}
{{- if and $existing $existing.data (hasKey $existing.data "cookie-key") -}}
{{- index $existing.data "cookie-key" | b64dec -}}
{{- else -}}
{{- randAlphaNum 32 | b64enc -}}
{{- end -}}
{{- end -}}

{{/* Pod-spec volumes and mounts shared by the Deployment and the crawl CronJob. */}}
{{- define "demarkus-broker.volumes" -}}
- name: config
  secret:
    secretName: {{ include "demarkus-broker.fullname" . }}-config
    items:
      - key: config.yaml
        path: config.yaml
- name: tmp
  emptyDir:
    sizeLimit: 64Mi
{{- if .Values.server.mcp.tls.existingSecretRef.name }}
- name: mcp-tls
  secret:
    secretName: {{ .Values.server.mcp.tls.existingSecretRef.name }}
{{- end }}
{{- if .Values.redis.caSecretRef.name }}
- name: redis-ca
  secret:
    secretName: {{ .Values.redis.caSecretRef.name }}
    items:
      - key: {{ .Values.redis.caSecretRef.key }}
        path: ca.crt
{{- end }}
{{- if .Values.redis.sentinel.existingSecret.name }}
- name: redis-sentinel-password
  secret:
    secretName: {{ .Values.redis.sentinel.existingSecret.name }}
    items:
      - key: {{ .Values.redis.sentinel.existingSecret.key }}
        path: password
{{- end }}
{{- if .Values.worldDialer.caSecretRef.name }}
- name: world-ca
  secret:
    secretName: {{ .Values.worldDialer.caSecretRef.name }}
    items:
      - key: {{ .Values.worldDialer.caSecretRef.key }}
        path: ca.crt
{{- end }}
{{- end -}}

{{- define "demarkus-broker.volumeMounts" -}}
- name: config
  mountPath: /etc/demarkus-broker/config.yaml
  subPath: config.yaml
  readOnly: true
- name: tmp
  mountPath: /tmp
{{- if .Values.server.mcp.tls.existingSecretRef.name }}
- name: mcp-tls
  mountPath: /etc/demarkus-broker/tls/mcp
  readOnly: true
{{- end }}
{{- if .Values.redis.caSecretRef.name }}
- name: redis-ca
  mountPath: /etc/demarkus-broker/redis-ca
  readOnly: true
{{- end }}
{{- if .Values.redis.sentinel.existingSecret.name }}
- name: redis-sentinel-password
  mountPath: /etc/demarkus-broker/redis-sentinel
  readOnly: true
{{- end }}
{{- if .Values.worldDialer.caSecretRef.name }}
- name: world-ca
  mountPath: /etc/demarkus-broker/world-ca
  readOnly: true
{{- end }}
{{- end -}}

{{/*
rateLimit.trustForwardedFor as given, or when null (the default) whether the
chart's own Ingress is in front: only then does a proxy append the address it
saw to X-Forwarded-For. Reached directly, the header is the client's own
(test/security/chart-forwarded-for.test.ts).
*/}}
{{- define "demarkus-broker.trustForwardedFor" -}}
{{- $given := .Values.rateLimit.trustForwardedFor -}}
{{- if kindIs "invalid" $given -}}
{{- .Values.ingress.enabled -}}
{{- else -}}
{{- $given -}}
{{- end -}}
{{- end -}}

{{/* "true" when the broker shares its short-lived state through Redis, else "". */}}
{{- define "demarkus-broker.redisEnabled" -}}
{{- if or .Values.redis.url .Values.redis.sentinel.masterName -}}true{{- end -}}
{{- end -}}

{{/*
The port of a host[:port] or [v6][:port] address, or "" when it names none:
the part after the last ":" once a bracketed IPv6 host is skipped (the
broker's src/broker/config/host-port.ts reads addresses the same way).
*/}}
{{- define "demarkus-broker.addressPort" -}}
{{- $afterHost := ternary (splitList "]" . | last) . (hasPrefix "[" .) -}}
{{- if contains ":" $afterHost -}}
{{- splitList ":" $afterHost | last -}}
{{- end -}}
{{- end -}}

{{/* The TCP ports the broker dials Redis on: the URL's (6379 by default) and each sentinel's. */}}
{{- define "demarkus-broker.redisPorts" -}}
{{- $ports := dict -}}
{{- with .Values.redis.url -}}
{{- $hostPort := regexReplaceAll "^rediss?://([^/]*).*$" . "${1}" -}}
{{- $_ := set $ports (default "6379" (include "demarkus-broker.addressPort" $hostPort)) true -}}
{{- end -}}
{{- range .Values.redis.sentinel.nodes -}}
{{- $_ := set $ports (include "demarkus-broker.addressPort" .) true -}}
{{- end -}}
{{- keys $ports | sortAlpha | join "," -}}
{{- end -}}

{{- define "demarkus-broker.env" -}}
- name: POD_NAME
  valueFrom:
    fieldRef:
      fieldPath: metadata.name
- name: POD_NAMESPACE
  valueFrom:
    fieldRef:
      fieldPath: metadata.namespace
- name: LOG_LEVEL
  value: {{ .Values.logLevel | quote }}
{{- if .Values.oidc.existingSecretRef.name }}
- name: OIDC_CLIENT_SECRET
  valueFrom:
    secretKeyRef:
      name: {{ .Values.oidc.existingSecretRef.name }}
      key: {{ .Values.oidc.existingSecretRef.key }}
{{- end }}
{{- if .Values.oidc.existingSigningKeyRef.name }}
- name: BROKER_SIGNING_KEY
  valueFrom:
    secretKeyRef:
      name: {{ .Values.oidc.existingSigningKeyRef.name }}
      key: {{ .Values.oidc.existingSigningKeyRef.key }}
{{- end }}
{{- if .Values.oidc.existingNextSigningKeyRef.name }}
- name: BROKER_NEXT_SIGNING_KEY
  valueFrom:
    secretKeyRef:
      name: {{ .Values.oidc.existingNextSigningKeyRef.name }}
      key: {{ .Values.oidc.existingNextSigningKeyRef.key }}
{{- end }}
{{- with .Values.server.existingCookieKeyRef }}
{{- if .name }}
- name: DEMARKUS_BROKER_COOKIE_KEY
  valueFrom:
    secretKeyRef:
      name: {{ .name }}
      key: {{ .key }}
{{- end }}
{{- end }}
{{- if .Values.redis.existingSecret.name }}
- name: DEMARKUS_BROKER_REDIS_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ .Values.redis.existingSecret.name }}
      key: {{ .Values.redis.existingSecret.key }}
{{- end }}
{{- with .Values.extraEnv }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* NetworkPolicy egress rules shared by the broker's and the crawl's policies. */}}
{{- define "demarkus-broker.egressDnsAndHttps" -}}
{{- $np := .Values.networkPolicy -}}
# DNS.
- to:
    - namespaceSelector:
        matchLabels:
          kubernetes.io/metadata.name: {{ $np.dns.namespace | quote }}
      podSelector:
        matchLabels:
          {{- toYaml $np.dns.podLabels | nindent 10 }}
  ports:
    - {protocol: UDP, port: 53}
    - {protocol: TCP, port: 53}
# The Kubernetes API server (Secrets, Lease, discovery) and the IdP.
- ports:
    - {protocol: TCP, port: 443}
    - {protocol: TCP, port: 6443}
  {{- with $np.httpsEgressCIDRs }}
  to:
    {{- range . }}
    - ipBlock: {cidr: {{ . | quote }}}
    {{- end }}
  {{- end }}
{{- end -}}

{{/*
Worlds: Mark Protocol over QUIC, on 6309 plus any port named in
worlds[].internalAddress, and with "discovered" (the broker's policy, not the
crawl's: the crawl runs no discovery) and discovery.enabled, the ports of
networkPolicy.discoveredWorldPorts. A discovered world is dialled on its
Service's UDP port named mark, else its first UDP port
(src/broker/kubernetes/service-world.ts), which the chart cannot know at
render time. Called with (dict "context" $ "discovered" true|false).
*/}}
{{- define "demarkus-broker.egressWorlds" -}}
{{- $values := .context.Values -}}
{{- $worldPorts := dict "6309" true -}}
{{- range $values.worlds -}}
{{- if .internalAddress -}}
{{- $_ := set $worldPorts (include "demarkus-broker.addressPort" .internalAddress) true -}}
{{- end -}}
{{- end -}}
{{- if and .discovered $values.discovery.enabled -}}
{{- range $values.networkPolicy.discoveredWorldPorts -}}
{{- $_ := set $worldPorts (toString .) true -}}
{{- end -}}
{{- end -}}
# Worlds: Mark Protocol over QUIC.
- ports:
    {{- range $port, $_ := $worldPorts }}
    - {protocol: UDP, port: {{ $port }}}
    {{- end }}
{{- end -}}
