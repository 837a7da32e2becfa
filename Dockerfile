# The t2sbench image: the binary (cgo, for the go-sqlite3 driver) on a slim
# Debian with a shell, tar (kubectl cp) and CA certificates (hosted APIs).
#   docker build -t t2sbench:latest .
# The manifests in deploy/k8s run it as user 65532.

FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=1 go build -trimpath -ldflags="-s -w" -o /out/t2sbench ./cmd/t2sbench

FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/t2sbench /usr/local/bin/t2sbench
# Caches (value indexes, gold results) go here unless XDG_CACHE_HOME is
# set; the Jobs point it at the shared volume.
ENV XDG_CACHE_HOME=/tmp/t2sbench-cache
USER 65532:65532
WORKDIR /tmp
ENTRYPOINT ["/usr/local/bin/t2sbench"]
