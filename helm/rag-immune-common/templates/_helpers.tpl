{{/*
Shared templates of the RAG Immune worker charts. A worker chart calls each one with
(dict "ctx" $ "worker" $worker) where $worker = (dict "name" "identifier" "prefix" "IDENTIFIER" "port" 9465 "needsToken" true).
Everything a user can change is in the worker chart's values; the worker dict holds what is fixed by the code.
*/}}

{{- define "rag-immune-common.name" -}}
{{- default .worker.name .ctx.Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "rag-immune-common.fullname" -}}
{{- if .ctx.Values.fullnameOverride }}
{{- .ctx.Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := include "rag-immune-common.name" . }}
{{- if contains $name .ctx.Release.Name }}
{{- .ctx.Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .ctx.Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "rag-immune-common.selectorLabels" -}}
app.kubernetes.io/name: {{ include "rag-immune-common.name" . }}
app.kubernetes.io/instance: {{ .ctx.Release.Name }}
{{- end }}

{{- define "rag-immune-common.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .ctx.Chart.Name .ctx.Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "rag-immune-common.selectorLabels" . }}
app.kubernetes.io/version: {{ .ctx.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .ctx.Release.Service }}
app.kubernetes.io/part-of: rag-immune
app.kubernetes.io/component: {{ .worker.name }}
{{- end }}

{{- define "rag-immune-common.serviceAccountName" -}}
{{- if .ctx.Values.serviceAccount.create }}
{{- default (include "rag-immune-common.fullname" .) .ctx.Values.serviceAccount.name }}
{{- else }}
{{- default "default" .ctx.Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "rag-immune-common.image" -}}
{{- $img := .ctx.Values.image }}
{{- if $img.digest }}
{{- printf "%s@%s" $img.repository $img.digest }}
{{- else }}
{{- printf "%s:%s" $img.repository (default .ctx.Chart.AppVersion $img.tag) }}
{{- end }}
{{- end }}

{{/*
Environment shared by every worker: bus, stores, telemetry. Non-secret values go to the ConfigMap;
secrets are only ever referenced from an existing Secret (secretEnv), never rendered from values.
*/}}
{{- define "rag-immune-common.sharedEnv" -}}
{{- $v := .ctx.Values }}
{{- if not .worker.noBus }}
KAFKA_BROKERS: {{ required "bus.brokers is required (host:port[,host:port...])" $v.bus.brokers | quote }}
SCHEMA_REGISTRY_URL: {{ required "bus.schemaRegistryUrl is required" $v.bus.schemaRegistryUrl | quote }}
BUS_PROFILE: {{ $v.bus.profile | quote }}
BUS_TOPIC_PREFIX: {{ $v.bus.topicPrefix | quote }}
KAFKA_CLIENT_ID: {{ include "rag-immune-common.fullname" . | quote }}
{{- if $v.bus.tls.enabled }}
KAFKA_SSL: "true"
{{- with $v.bus.tls.existingSecret }}
{{- if $v.bus.tls.caKey }}
KAFKA_SSL_CA_FILE: {{ printf "/etc/rag-immune/kafka-tls/%s" $v.bus.tls.caKey | quote }}
{{- end }}
{{- if $v.bus.tls.certKey }}
KAFKA_SSL_CERT_FILE: {{ printf "/etc/rag-immune/kafka-tls/%s" $v.bus.tls.certKey | quote }}
KAFKA_SSL_KEY_FILE: {{ printf "/etc/rag-immune/kafka-tls/%s" (required "bus.tls.keyKey is required with bus.tls.certKey" $v.bus.tls.keyKey) | quote }}
{{- end }}
{{- end }}
{{- if not $v.bus.tls.verify }}
KAFKA_SSL_REJECT_UNAUTHORIZED: "false"
{{- end }}
{{- end }}
{{- if $v.bus.sasl.mechanism }}
KAFKA_SASL_MECHANISM: {{ $v.bus.sasl.mechanism | quote }}
KAFKA_SASL_USERNAME: {{ $v.bus.sasl.username | quote }}
{{- end }}
{{- if $v.bus.schemaRegistryUsername }}
SCHEMA_REGISTRY_USERNAME: {{ $v.bus.schemaRegistryUsername | quote }}
{{- end }}
{{- with $v.bus.processedEvents }}
BUS_PROCESSED_EVENTS: {{ . | quote }}
{{- end }}
{{- /* The key id goes with the signing secret: rendered alone, the worker would refuse to start. */}}
{{- if hasKey ($v.secretEnv | default dict) "BUS_SIGNING_KEY" }}
{{- /* Consumers accept a topic only from keys naming its producer (<worker>@...): another id would be refused everywhere. */}}
{{- if and $v.bus.signingKeyId (not (hasPrefix (printf "%s@" .worker.name) $v.bus.signingKeyId)) }}
{{- fail (printf "bus.signingKeyId must start with %s@ (consumers accept a topic only from keys naming its producer)" .worker.name) }}
{{- end }}
BUS_SIGNING_KEY_ID: {{ default (printf "%s@%s" .worker.name .ctx.Chart.AppVersion) $v.bus.signingKeyId | quote }}
{{- end }}
{{- /* Which worker's keys a consumer accepts on each topic (packages/bus/README.md, "A key signs only its own topic"). */}}
{{- with $v.bus.topicProducers }}
BUS_TOPIC_PRODUCERS: {{ . | quote }}
{{- end }}
{{- end }}
{{- if $v.stores.elasticsearchUrl }}
ELASTICSEARCH_URL: {{ $v.stores.elasticsearchUrl | quote }}
{{- end }}
{{- if $v.stores.qdrantUrl }}
QDRANT_URL: {{ $v.stores.qdrantUrl | quote }}
{{- end }}
ES_INDEX_PREFIX: {{ $v.stores.indexPrefix | quote }}
{{- with $v.telemetry }}
{{- if .otlpEndpoint }}
OTEL_EXPORTER_OTLP_ENDPOINT: {{ .otlpEndpoint | quote }}
{{- end }}
{{- if .resourceAttributes }}
OTEL_RESOURCE_ATTRIBUTES: {{ .resourceAttributes | quote }}
{{- end }}
{{- end }}
{{ printf "%s_HOST" .worker.prefix }}: "0.0.0.0"
{{- with ($v.tls | default dict) }}
{{- if .secretName }}
HTTP_TLS_CERT_FILE: {{ printf "/etc/rag-immune/http-tls/%s" .certKey | quote }}
HTTP_TLS_KEY_FILE: {{ printf "/etc/rag-immune/http-tls/%s" .keyKey | quote }}
{{- if .clientCaKey }}
HTTP_TLS_CLIENT_CA_FILE: {{ printf "/etc/rag-immune/http-tls/%s" .clientCaKey | quote }}
{{- end }}
{{- end }}
{{- end }}
{{ printf "%s_PORT" .worker.prefix }}: {{ .worker.port | quote }}
{{- if .worker.groupId }}
{{ printf "%s_GROUP_ID" .worker.prefix }}: {{ default .worker.groupId $v.groupId | quote }}
{{- end }}
{{- range $key, $value := .worker.env }}
{{ $key }}: {{ $value | toString | quote }}
{{- end }}
{{- range $key, $value := $v.config }}
{{ $key }}: {{ $value | toString | quote }}
{{- end }}
{{- end }}

{{- define "rag-immune-common.configmap" -}}
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ include "rag-immune-common.fullname" . }}
  namespace: {{ .ctx.Release.Namespace }}
  labels:
    {{- include "rag-immune-common.labels" . | nindent 4 }}
data:
  {{- include "rag-immune-common.sharedEnv" . | trim | nindent 2 }}
{{- end }}

{{- define "rag-immune-common.serviceaccount" -}}
{{- if .ctx.Values.serviceAccount.create }}
apiVersion: v1
kind: ServiceAccount
metadata:
  name: {{ include "rag-immune-common.serviceAccountName" . }}
  namespace: {{ .ctx.Release.Namespace }}
  labels:
    {{- include "rag-immune-common.labels" . | nindent 4 }}
  {{- with .ctx.Values.serviceAccount.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
automountServiceAccountToken: false
{{- end }}
{{- end }}

{{- define "rag-immune-common.service" -}}
apiVersion: v1
kind: Service
metadata:
  name: {{ include "rag-immune-common.fullname" . }}
  namespace: {{ .ctx.Release.Namespace }}
  labels:
    {{- include "rag-immune-common.labels" . | nindent 4 }}
  {{- with .ctx.Values.service.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  type: {{ .ctx.Values.service.type }}
  selector:
    {{- include "rag-immune-common.selectorLabels" . | nindent 4 }}
  ports:
    - name: http
      port: {{ .ctx.Values.service.port }}
      targetPort: http
      protocol: TCP
{{- end }}

{{- define "rag-immune-common.pdb" -}}
{{- $pdb := .ctx.Values.podDisruptionBudget }}
{{- if $pdb.enabled }}
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ include "rag-immune-common.fullname" . }}
  namespace: {{ .ctx.Release.Namespace }}
  labels:
    {{- include "rag-immune-common.labels" . | nindent 4 }}
spec:
  {{- if hasKey $pdb "minAvailable" }}
  minAvailable: {{ $pdb.minAvailable }}
  {{- else }}
  maxUnavailable: {{ $pdb.maxUnavailable }}
  {{- end }}
  selector:
    matchLabels:
      {{- include "rag-immune-common.selectorLabels" . | nindent 6 }}
{{- end }}
{{- end }}

{{/*
The Deployment (a StatefulSet when .worker.statefulSet: stable pod names). .worker.volumes / .worker.volumeMounts add worker-specific mounts (the sentinel's
probe file); /tmp is always a writable emptyDir because the root filesystem is read-only.
*/}}
{{- define "rag-immune-common.deployment" -}}
{{- $v := .ctx.Values }}
{{- /* A worker without the bus (the trace intake) has no bus values: its Kafka TLS is an empty dict. */ -}}
{{- $kafkaTls := dict }}
{{- if not .worker.noBus }}{{ $kafkaTls = $v.bus.tls }}{{ end }}
{{- $httpTls := $v.tls | default dict }}
{{- /* HTTPS probes with a server certificate; with mutual TLS a TCP check (the kubelet presents no client certificate). */ -}}
{{- $probe := dict "httpGet" (dict "path" "/healthz" "port" "http") }}
{{- if $httpTls.secretName }}
{{- $probe = dict "httpGet" (dict "path" "/healthz" "port" "http" "scheme" "HTTPS") }}
{{- if $httpTls.clientCaKey }}
{{- $probe = dict "tcpSocket" (dict "port" "http") }}
{{- end }}
{{- end }}
apiVersion: apps/v1
{{- if .worker.statefulSet }}
{{- /* Stable pod names (<fullname>-0, -1, …) that survive a reschedule: the replica's identity (podNameEnv). */}}
kind: StatefulSet
{{- else }}
kind: Deployment
{{- end }}
metadata:
  name: {{ include "rag-immune-common.fullname" . }}
  namespace: {{ .ctx.Release.Namespace }}
  labels:
    {{- include "rag-immune-common.labels" . | nindent 4 }}
spec:
  replicas: {{ $v.replicaCount }}
  revisionHistoryLimit: 5
  {{- if .worker.statefulSet }}
  serviceName: {{ include "rag-immune-common.fullname" . }}
  # Replicas start and stop together (no ordinal-by-ordinal wait): each drains on its own.
  podManagementPolicy: Parallel
  {{- with $v.updateStrategy }}
  updateStrategy:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- else }}
  {{- with $v.strategy }}
  strategy:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- end }}
  selector:
    matchLabels:
      {{- include "rag-immune-common.selectorLabels" . | nindent 6 }}
  template:
    metadata:
      labels:
        {{- include "rag-immune-common.labels" . | nindent 8 }}
        {{- with $v.podLabels }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      annotations:
        # Restart pods when the rendered configuration changes.
        checksum/config: {{ include "rag-immune-common.sharedEnv" . | sha256sum }}
        {{- if $v.metrics.scrapeAnnotations }}
        prometheus.io/scrape: "true"
        prometheus.io/port: {{ .worker.port | quote }}
        prometheus.io/path: /metrics
        {{- if $httpTls.secretName }}
        prometheus.io/scheme: https
        {{- end }}
        {{- end }}
        {{- with $v.podAnnotations }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
    spec:
      serviceAccountName: {{ include "rag-immune-common.serviceAccountName" . }}
      automountServiceAccountToken: false
      {{- with $v.imagePullSecrets }}
      imagePullSecrets:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      securityContext:
        {{- toYaml $v.podSecurityContext | nindent 8 }}
      terminationGracePeriodSeconds: {{ $v.terminationGracePeriodSeconds }}
      containers:
        - name: {{ .worker.name }}
          image: {{ include "rag-immune-common.image" . | quote }}
          imagePullPolicy: {{ $v.image.pullPolicy }}
          command: ["node", "--import", "tsx", {{ printf "services/%s/src/main.ts" .worker.name | quote }}]
          securityContext:
            {{- toYaml $v.securityContext | nindent 12 }}
          ports:
            - name: http
              containerPort: {{ .worker.port }}
              protocol: TCP
          envFrom:
            - configMapRef:
                name: {{ include "rag-immune-common.fullname" . }}
          env:
            {{- with .worker.podNameEnv }}
            # The pod name as the replica's stable identity (a restarted container resumes its work).
            - name: {{ . }}
              valueFrom:
                fieldRef:
                  fieldPath: metadata.name
            {{- end }}
            {{- range $name, $key := $v.secretEnv }}
            - name: {{ $name }}
              valueFrom:
                secretKeyRef:
                  name: {{ required "existingSecret is required when secretEnv names keys" $v.existingSecret | quote }}
                  key: {{ $key | quote }}
            {{- end }}
            {{- with $v.extraEnv }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
          startupProbe:
            {{- toYaml $probe | nindent 12 }}
            {{- toYaml $v.probes.startup | nindent 12 }}
          livenessProbe:
            {{- toYaml $probe | nindent 12 }}
            {{- toYaml $v.probes.liveness | nindent 12 }}
          readinessProbe:
            {{- toYaml $probe | nindent 12 }}
            {{- toYaml $v.probes.readiness | nindent 12 }}
          resources:
            {{- toYaml $v.resources | nindent 12 }}
          volumeMounts:
            - name: tmp
              mountPath: /tmp
            {{- if and $kafkaTls.enabled $kafkaTls.existingSecret }}
            - name: kafka-tls
              mountPath: /etc/rag-immune/kafka-tls
              readOnly: true
            {{- end }}
            {{- if $httpTls.secretName }}
            - name: http-tls
              mountPath: /etc/rag-immune/http-tls
              readOnly: true
            {{- end }}
            {{- with .worker.volumeMounts }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
            {{- with $v.extraVolumeMounts }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
      volumes:
        - name: tmp
          emptyDir:
            sizeLimit: {{ $v.tmpSizeLimit }}
        {{- if and $kafkaTls.enabled $kafkaTls.existingSecret }}
        - name: kafka-tls
          secret:
            secretName: {{ $kafkaTls.existingSecret | quote }}
            defaultMode: 0440
        {{- end }}
        {{- if $httpTls.secretName }}
        - name: http-tls
          secret:
            secretName: {{ $httpTls.secretName | quote }}
            defaultMode: 0440
        {{- end }}
        {{- with .worker.volumes }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
        {{- with $v.extraVolumes }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      {{- with $v.nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $v.affinity }}
      affinity:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $v.tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $v.topologySpreadConstraints }}
      topologySpreadConstraints:
        {{- toYaml . | nindent 8 }}
      {{- end }}
{{- end }}

{{/*
NetworkPolicy of the worker's pods: ingress only on the HTTP port, only from networkPolicy.ingressFrom
(an empty list admits no one). Egress stays open unless networkPolicy.egress.restrict: the bus, the
stores, the RAG and the collector may be outside the cluster, where a pod selector cannot name them.
*/}}
{{- define "rag-immune-common.networkpolicy" -}}
{{- $np := .ctx.Values.networkPolicy }}
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: {{ include "rag-immune-common.fullname" . }}
  namespace: {{ .ctx.Release.Namespace }}
  labels:
    {{- include "rag-immune-common.labels" . | nindent 4 }}
spec:
  podSelector:
    matchLabels:
      {{- include "rag-immune-common.selectorLabels" . | nindent 6 }}
  policyTypes:
    - Ingress
    {{- if $np.egress.restrict }}
    - Egress
    {{- end }}
  {{- if $np.ingressFrom }}
  ingress:
    - ports:
        - port: {{ .worker.port }}
          protocol: TCP
      from:
        {{- toYaml $np.ingressFrom | nindent 8 }}
  {{- else }}
  ingress: []
  {{- end }}
  {{- if $np.egress.restrict }}
  egress:
    {{- if $np.egress.allowDns }}
    - to:
        - namespaceSelector:
            matchLabels:
              kubernetes.io/metadata.name: kube-system
      ports:
        - port: 53
          protocol: UDP
        - port: 53
          protocol: TCP
    {{- end }}
    {{- with $np.egress.rules }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  {{- end }}
{{- end }}

{{/* Everything a worker chart renders, in one call. */}}
{{- define "rag-immune-common.worker" -}}
{{ include "rag-immune-common.serviceaccount" . }}
---
{{ include "rag-immune-common.configmap" . }}
---
{{ include "rag-immune-common.deployment" . }}
---
{{ include "rag-immune-common.service" . }}
{{- if .ctx.Values.podDisruptionBudget.enabled }}
---
{{ include "rag-immune-common.pdb" . }}
{{- end }}
{{- if and .ctx.Values.networkPolicy .ctx.Values.networkPolicy.enabled }}
---
{{ include "rag-immune-common.networkpolicy" . }}
{{- end }}
{{- end }}
