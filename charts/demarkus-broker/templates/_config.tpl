{{/*
The broker's config.yaml (docs/configuration.md; keys of the Go broker where
they exist). Values are written with toJson, which is valid YAML for any
string, so no value can break the document. Secrets given by reference are
left blank here and arrive as OIDC_CLIENT_SECRET / BROKER_SIGNING_KEY /
BROKER_NEXT_SIGNING_KEY / DEMARKUS_BROKER_COOKIE_KEY, or as mounted files (the
sentinels' password).
*/}}
{{/*
A count for config.yaml: the whole number values.yaml gives, or null when an
operator removed the key (`key: null`, how Helm deletes a value). The broker's
loader reads null as not set, so its own default applies
(src/broker/config/load.ts); `int` alone turned a removed key into 0, which
counts with a floor of 1 refuse (docs/decisions.md, "The broker chart renders
a removed count as not set"). An explicit
0 is still rendered as 0: values.schema.json decides whether it is allowed.
*/}}
{{- define "demarkus-broker.count" -}}
{{- if kindIs "invalid" . -}}
null
{{- else -}}
{{- int . -}}
{{- end -}}
{{- end -}}

{{- define "demarkus-broker.config" -}}
{{- $v := .Values -}}
server:
  addr: {{ printf ":%v" $v.server.port | toJson }}
  publicURL: {{ $v.server.publicURL | toJson }}
  brokerNamespace: {{ include "demarkus-broker.brokerNamespace" . | toJson }}
  {{- with include "demarkus-broker.cookieKey" . }}
  cookieKey: {{ . | toJson }}
  {{- end }}
  stateTTL: {{ $v.server.stateTTL | toJson }}
  insecureCookies: {{ $v.server.insecureCookies }}
  refreshTokenTTL: {{ $v.server.refreshTokenTTL | toJson }}
  idTokenTTL: {{ $v.server.idTokenTTL | toJson }}
  deviceCodeTTL: {{ $v.server.deviceCodeTTL | toJson }}
  devicePollInterval: {{ $v.server.devicePollInterval | toJson }}
  refreshTokensSecret: {{ include "demarkus-broker.refreshTokensSecret" . | toJson }}
  {{- with $v.server.allowedHosts }}
  allowedHosts: {{ toJson . }}
  {{- end }}
  {{- with $v.server.allowedOrigins }}
  allowedOrigins: {{ toJson . }}
  {{- end }}
  cors:
    allowedOrigins: {{ default list $v.server.cors.allowedOrigins | toJson }}
    allowCredentials: {{ $v.server.cors.allowCredentials }}
    maxAge: {{ $v.server.cors.maxAge | toJson }}
  mcp:
    addr: {{ $v.server.mcp.addr | toJson }}
    publicURL: {{ default $v.server.publicURL $v.server.mcp.publicURL | toJson }}
    {{- if $v.server.mcp.tls.existingSecretRef.name }}
    tls:
      certFile: /etc/demarkus-broker/tls/mcp/tls.crt
      keyFile: /etc/demarkus-broker/tls/mcp/tls.key
    {{- end }}
    firstMintMaxAttempts: {{ include "demarkus-broker.count" $v.server.mcp.firstMintMaxAttempts }}
    firstMintInitialBackoff: {{ $v.server.mcp.firstMintInitialBackoff | toJson }}
    firstMintMaxBackoff: {{ $v.server.mcp.firstMintMaxBackoff | toJson }}
    callsPerSubject: {{ include "demarkus-broker.count" $v.server.mcp.callsPerSubject }}
    callsPerSubjectShared: {{ include "demarkus-broker.count" $v.server.mcp.callsPerSubjectShared }}
    queuedCallsPerSubject: {{ include "demarkus-broker.count" $v.server.mcp.queuedCallsPerSubject }}
  management:
    addr: {{ printf ":%v" $v.server.management.port | toJson }}
  shutdown:
    drainDelay: {{ $v.server.shutdown.drainDelay | toJson }}
    timeout: {{ $v.server.shutdown.timeout | toJson }}
oidc:
  {{- if $v.oidc.issuer }}
  issuer: {{ $v.oidc.issuer | toJson }}
  clientID: {{ $v.oidc.clientID | toJson }}
  clientSecret: {{ $v.oidc.clientSecret | toJson }}
  redirectURL: {{ $v.oidc.redirectURL | toJson }}
  {{- end }}
  allowDomains: {{ default list $v.oidc.allowDomains | toJson }}
  brokerSigningKey: {{ $v.oidc.brokerSigningKey | toJson }}
storage:
  backend: kubernetes
worlds: {{ include "demarkus-broker.worlds" . }}
{{- /* The crawl publishes to the config's hub (it has no --hub of its own), so the broker seeds from where it writes. */}}
hub: {{ $v.crawl.hub | toJson }}
webClients: {{ default list $v.webClients | toJson }}
oauth:
  registration:
    disabled: {{ $v.oauth.registration.disabled }}
    maxClients: {{ include "demarkus-broker.count" $v.oauth.registration.maxClients }}
    unusedTtl: {{ $v.oauth.registration.unusedTtl | toJson }}
  clientMetadataDocuments:
    disabled: {{ $v.oauth.clientMetadataDocuments.disabled }}
  maxRefreshTokenFamilies: {{ include "demarkus-broker.count" $v.oauth.maxRefreshTokenFamilies }}
  maxRefreshTokenFamiliesPerUser: {{ include "demarkus-broker.count" $v.oauth.maxRefreshTokenFamiliesPerUser }}
sweeper:
  disabled: {{ $v.sweeper.disabled }}
  interval: {{ $v.sweeper.interval | toJson }}
  leaseName: {{ $v.sweeper.leaseName | toJson }}
state:
  maxPendingSignIns: {{ include "demarkus-broker.count" $v.state.maxPendingSignIns }}
  {{- if include "demarkus-broker.redisEnabled" . }}
  ephemeral: redis
  {{- end }}
{{- if include "demarkus-broker.redisEnabled" . }}
redis:
  {{- if $v.redis.url }}
  url: {{ $v.redis.url | toJson }}
  {{- end }}
  {{- if $v.redis.username }}
  username: {{ $v.redis.username | toJson }}
  {{- end }}
  keyPrefix: {{ $v.redis.keyPrefix | toJson }}
  connectTimeout: {{ $v.redis.connectTimeout | toJson }}
  commandTimeout: {{ $v.redis.commandTimeout | toJson }}
  {{- if $v.redis.caSecretRef.name }}
  caFile: /etc/demarkus-broker/redis-ca/ca.crt
  {{- end }}
  {{- if $v.redis.sentinel.masterName }}
  sentinel:
    masterName: {{ $v.redis.sentinel.masterName | toJson }}
    nodes: {{ $v.redis.sentinel.nodes | toJson }}
    {{- if $v.redis.sentinel.existingSecret.name }}
    passwordFile: /etc/demarkus-broker/redis-sentinel/password
    {{- end }}
  {{- end }}
{{- end }}
rateLimit:
  disabled: {{ $v.rateLimit.disabled }}
  tokens: {{ $v.rateLimit.tokens | toJson }}
  login: {{ $v.rateLimit.login | toJson }}
  userCode: {{ $v.rateLimit.userCode | toJson }}
  registration: {{ $v.rateLimit.registration | toJson }}
  trustForwardedFor: {{ include "demarkus-broker.trustForwardedFor" . }}
worldDialer:
  insecureSkipVerify: {{ $v.worldDialer.insecureSkipVerify }}
  {{- if $v.worldDialer.caSecretRef.name }}
  caFile: /etc/demarkus-broker/world-ca/ca.crt
  {{- end }}
  dialTimeout: {{ $v.worldDialer.dialTimeout | toJson }}
  requestTimeout: {{ $v.worldDialer.requestTimeout | toJson }}
  attemptTimeout: {{ $v.worldDialer.attemptTimeout | default "0s" | toJson }}
  failureThreshold: {{ include "demarkus-broker.count" $v.worldDialer.failureThreshold }}
  cooldown: {{ $v.worldDialer.cooldown | toJson }}
{{- if $v.discovery.enabled }}
discovery:
  enabled: true
  namespaces: {{ default list $v.discovery.namespaces | toJson }}
  clusterDomain: {{ $v.discovery.clusterDomain | toJson }}
  maxWorlds: {{ include "demarkus-broker.count" $v.discovery.maxWorlds }}
{{- end }}
metrics:
  enabled: {{ $v.metrics.enabled }}
{{- end -}}
