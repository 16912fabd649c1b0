# The Replanner worker, for docker-compose (Temporal on PostgreSQL + Web UI + this worker).
FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts || npm ci --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY bench ./bench
COPY test/support ./test/support
COPY bin ./bin
RUN npm install --no-save typescript@5.9.3 @types/node@20.19.43 @types/jest@30.0.0 && npx tsc -p tsconfig.build.json
ENV TEMPORAL_ADDRESS=temporal:7233
CMD ["node", "--max-old-space-size=768", "dist/src/worker-main.js"]
