# The Replanner worker, for docker-compose.yml (Temporal on PostgreSQL + Web UI + this worker).
FROM node:20-bookworm-slim

# bubblewrap: the sandbox of run_command (README, "Safety"). Inside a container it needs the
# privileges docker-compose.yml gives the worker service (SYS_ADMIN, AppArmor and seccomp unconfined).
RUN apt-get update \
  && apt-get install -y --no-install-recommends bubblewrap ca-certificates \
  && rm -rf /var/lib/apt/lists/*

WORKDIR /app
# The project's own install command: exactly the lock file, dev dependencies included (the build needs swc).
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY bench ./bench
COPY test/support ./test/support
COPY bin ./bin
COPY scripts ./scripts
RUN npm run build && npm prune --omit=dev

# The workspace root of a worker that owns no workspace (docker-compose.yml, worker-b): an empty
# directory, so the root exists wherever a worker checks it, and no workspace is ever below it.
RUN mkdir /replanner-owns-no-workspace

ENV TEMPORAL_ADDRESS=temporal:7233
CMD ["node", "--max-old-space-size=768", "dist/src/worker-main.js"]
