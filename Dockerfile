# syntax=docker/dockerfile:1
# The SurfSense plugin host: a static binary on a distroless base, run as a
# non-root user. Build: docker build -t surfsense/pluginhost .
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/root/go/pkg/mod go mod download
COPY . .
RUN --mount=type=cache,target=/root/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=0 GOOS=linux go build -trimpath -ldflags="-s -w" -o /out/pluginhost ./cmd/pluginhost

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/pluginhost /pluginhost
ENV ADDR=0.0.0.0:8000
EXPOSE 8000 9090
USER nonroot:nonroot
HEALTHCHECK --interval=10s --timeout=4s --retries=3 CMD ["/pluginhost", "health"]
ENTRYPOINT ["/pluginhost"]
CMD ["serve"]
