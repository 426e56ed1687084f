#!/usr/bin/env bash
# Kafka ACLs of RAG Immune: each topic is written by exactly one worker's principal, so a stolen
# or misused credential of another worker cannot publish on it.
#
#   probes  (rag-sentinel-probes)      write: sentinel      read: identifier
#   reports (rag-identifiers-reports)  write: identifier    read: effector, memory
#   actions (rag-effectors-actions)    write: effector      read: identifier, memory
#   dead letters (rag-immune-dead-letter)  write: identifier, effector, memory (the consumers park poison there)
#   read: operators (the immune CLI), if OPERATOR_PRINCIPAL is set
#
# Kept as a script for Apache Kafka's kafka-acls.sh rather than in Terraform: no Kafka provider is
# available to this repository's OpenTofu (its provider mirror holds the kubernetes provider only).
# The ACLs only restrict anything when the brokers run an authorizer with
# allow.everyone.if.no.acl.found=false (the default) and no wildcard principal has Write on these topics:
# `check` verifies the latter.
#
# Usage:
#   terraform/kafka-acls.sh apply   # add the ACLs (idempotent)
#   terraform/kafka-acls.sh print   # show the kafka-acls.sh commands without running them
#   terraform/kafka-acls.sh check   # fail if any other principal may write an event topic
# Environment:
#   BOOTSTRAP_SERVER (required for apply/check), COMMAND_CONFIG (client properties: TLS + SASL of an admin),
#   KAFKA_ACLS (default kafka-acls.sh), TOPIC_PREFIX (BUS_TOPIC_PREFIX, default empty),
#   SENTINEL_PRINCIPAL, IDENTIFIER_PRINCIPAL, EFFECTOR_PRINCIPAL, MEMORY_PRINCIPAL (default User:rag-immune-<worker>,
#   the SASL username or the client certificate's DN), PROVISION_PRINCIPAL (the topic Job; default User:rag-immune-provision),
#   OPERATOR_PRINCIPAL (optional), GROUP_PREFIX (default rag-immune-: the workers' default consumer groups).
set -euo pipefail

mode=${1:-print}
kafka_acls=${KAFKA_ACLS:-kafka-acls.sh}
prefix=${TOPIC_PREFIX:-}
group_prefix=${GROUP_PREFIX:-rag-immune-}
sentinel=${SENTINEL_PRINCIPAL:-User:rag-immune-sentinel}
identifier=${IDENTIFIER_PRINCIPAL:-User:rag-immune-identifier}
effector=${EFFECTOR_PRINCIPAL:-User:rag-immune-effector}
memory=${MEMORY_PRINCIPAL:-User:rag-immune-memory}
provision=${PROVISION_PRINCIPAL:-User:rag-immune-provision}
operator=${OPERATOR_PRINCIPAL:-}

probes="${prefix}rag-sentinel-probes"
reports="${prefix}rag-identifiers-reports"
actions="${prefix}rag-effectors-actions"
dead_letter="${prefix}rag-immune-dead-letter"
all_topics=("$probes" "$reports" "$actions" "$dead_letter")

connection=()
if [ "$mode" != print ]; then
  connection=(--bootstrap-server "${BOOTSTRAP_SERVER:?BOOTSTRAP_SERVER is required}")
  [ -n "${COMMAND_CONFIG:-}" ] && connection+=(--command-config "$COMMAND_CONFIG")
fi

acl() {
  local cmd=("$kafka_acls" "${connection[@]}" --add --allow-principal "$@")
  if [ "$mode" = print ]; then printf '%q ' "${cmd[@]}" && echo; else "${cmd[@]}" >/dev/null; fi
}

# Producers: Write on their own topic only (idempotent producers need nothing more on Kafka >= 3.0;
# IdempotentWrite on the cluster is added for older brokers).
producer() {
  acl "$1" --operation Write --operation Describe --topic "$2"
  acl "$1" --operation IdempotentWrite --cluster
}

# Consumers: Read on the topic and on their consumer groups (prefixed: <group>, <group>-actions, <group>.reports...).
consumer() {
  acl "$1" --operation Read --operation Describe --topic "$2"
  acl "$1" --operation Read --operation Describe --group "$3" --resource-pattern-type prefixed
}

apply() {
  producer "$sentinel" "$probes"
  producer "$identifier" "$reports"
  producer "$effector" "$actions"
  consumer "$identifier" "$probes" "${group_prefix}identifier"
  consumer "$identifier" "$actions" "${group_prefix}identifier"
  consumer "$effector" "$reports" "${group_prefix}effector"
  consumer "$memory" "$reports" "${group_prefix}memory"
  consumer "$memory" "$actions" "${group_prefix}memory"
  # Every consumer parks poison messages in the dead-letter topic.
  for principal in "$identifier" "$effector" "$memory"; do
    acl "$principal" --operation Write --operation Describe --topic "$dead_letter"
    acl "$principal" --operation IdempotentWrite --cluster
  done
  # Workers check the topic layout at start (describe only; the Job creates and grows topics).
  for principal in "$sentinel" "$identifier" "$effector" "$memory"; do
    for topic in "${all_topics[@]}"; do acl "$principal" --operation Describe --operation DescribeConfigs --topic "$topic"; done
  done
  for topic in "${all_topics[@]}"; do
    acl "$provision" --operation Create --operation Describe --operation Alter --operation DescribeConfigs --operation AlterConfigs --topic "$topic"
  done
  if [ -n "$operator" ]; then
    for topic in "${all_topics[@]}"; do acl "$operator" --operation Read --operation Describe --topic "$topic"; done
    acl "$operator" --operation Read --operation Describe --group immune- --resource-pattern-type prefixed
  fi
}

# Lists who may write each event topic (any matching pattern: literal, prefixed, wildcard) and
# fails on a principal other than the topic's producer.
check() {
  local failed=0 topic allowed line
  for pair in "$probes=$sentinel" "$reports=$identifier" "$actions=$effector"; do
    topic=${pair%%=*}
    allowed=${pair#*=}
    while IFS= read -r line; do
      case "$line" in
        *"principal=$allowed,"*) ;;
        *"operation=WRITE,"*"permissionType=ALLOW"* | *"operation=ALL,"*"permissionType=ALLOW"*)
          echo "kafka-acls: $topic is writable by another principal: $line" >&2
          failed=1
          ;;
      esac
    done < <("$kafka_acls" "${connection[@]}" --list --topic "$topic" --resource-pattern-type match)
  done
  [ "$failed" = 0 ] && echo "kafka-acls: each event topic is writable by its producer only"
  return "$failed"
}

case "$mode" in
  print | apply) apply ;;
  check) check ;;
  *)
    echo "usage: $0 print|apply|check" >&2
    exit 64
    ;;
esac
