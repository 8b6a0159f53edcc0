# syntax=docker/dockerfile:1
# One image for the six services, their migrations and the all-in-one. The Helm chart runs
#   node services/<service>/dist/main.js           a service (distributed mode)
#   node apps/all-in-one/dist/migrate.js [svc]  the migrations, then exits
#   node apps/all-in-one/dist/console.js        the web console's files (ADR 101), from apps/console/dist
# and `docker run` alone starts the all-in-one (embedded PostgreSQL needs a writable DATA_DIR volume).
# NODE_VERSION and PNPM_VERSION are the ones scripts/toolchain.mjs and package.json pin (a test keeps them equal).
ARG NODE_VERSION=24.21.0

FROM node:${NODE_VERSION}-bookworm-slim AS build
ARG PNPM_VERSION=10.34.9
RUN npm install --global --no-fund --no-audit pnpm@${PNPM_VERSION}
WORKDIR /src
# Manifests first: the dependency layer is rebuilt only when they change.
COPY package.json pnpm-lock.yaml pnpm-workspace.yaml turbo.json tsconfig.base.json ./
COPY packages ./packages
COPY services ./services
COPY apps ./apps
COPY proto ./proto
RUN pnpm install --frozen-lockfile --filter '@routinely/all-in-one...'
RUN pnpm exec turbo run build --filter '@routinely/all-in-one...'
# Production dependencies only (no vitest, TypeScript, testcontainers): reinstall from the store, offline.
RUN rm -rf node_modules packages/*/node_modules services/*/node_modules apps/*/node_modules \
 && CI=true pnpm install --prod --frozen-lockfile --offline --filter '@routinely/all-in-one...' \
 && rm -rf packages/*/src packages/*/test services/*/src services/*/test apps/*/src apps/*/test packages/proto/baseline

FROM node:${NODE_VERSION}-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
# Owned by root and not writable by the runtime user; the chart also mounts the root filesystem read-only.
COPY --from=build /src /app
# The uid the chart's podSecurityContext runs as.
USER 10001:10001
EXPOSE 8080 50051
CMD ["node", "apps/all-in-one/dist/main.js"]
