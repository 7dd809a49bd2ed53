# The dropflow image: `dropflow worker`, `dropflow gateway`, `dropflow setup`, … (see docker-compose.yml).
# The product only: the dev tools (tools/: sandbox, bench, chaos) stay out, and `npm ci` without
# tools/ installs no link to them (docs/architecture.md §2.4).
FROM node:20.20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force
COPY tsconfig.json ./
COPY bin ./bin
COPY src ./src
USER node
ENTRYPOINT ["node", "bin/dropflow.js"]
CMD ["--help"]
