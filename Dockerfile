# syntax=docker/dockerfile:1
# The SurfSense plugin host: a static binary on a distroless base, run as a
# non-root user. Build: docker build -t surfsense/pluginhost .
# cmd/pluginhost's TestDockerfileWarmCache runs this file's steps as processes.
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
# go.mod replaces go-htmldate with this folder (a stand-in without go-dateparser).
COPY internal/htmldatestub ./internal/htmldatestub
RUN --mount=type=cache,target=/root/go/pkg/mod go mod download
COPY . .
RUN --mount=type=cache,target=/root/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=0 GOOS=linux go build -trimpath -ldflags="-s -w" -o /out/pluginhost ./cmd/pluginhost
# The PDF engine compiled ahead of time, so that a new replica's first PDF
# loads it rather than compiling it (seconds and ~400 MB).
RUN /out/pluginhost warm-cache /out/pdf-cache

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/pluginhost /pluginhost
COPY --from=build /out/pdf-cache /pdf-cache
ENV ADDR=0.0.0.0:8000 DOCUMENT_CACHE_DIR=/pdf-cache
EXPOSE 8000 9090
USER nonroot:nonroot
HEALTHCHECK --interval=10s --timeout=4s --retries=3 CMD ["/pluginhost", "health"]
ENTRYPOINT ["/pluginhost"]
CMD ["serve"]
