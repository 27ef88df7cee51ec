// Example parameters: copy to main.bicepparam, change, then
//   az deployment group create -g <rg> -f deploy/main.bicep -p deploy/main.bicepparam
// Secrets never go here: keygen-url, keygen-account and proxy-urls live in
// the Key Vault named below (see README.md).
using 'main.bicep'

param namePrefix = 'surfsense-ph'
param hostImage = 'surfsenseacr.azurecr.io/pluginhost:1.0.0'
param registryServer = 'surfsenseacr.azurecr.io'
param searxngImage = 'docker.io/searxng/searxng:latest'
param browserImage = 'docker.io/chromedp/headless-shell:stable'
param renderConcurrency = 2
param publicUrl = 'https://plugins.surfsense.com'
param keyVaultName = 'surfsense-ph-kv'
param minReplicas = 2
param maxReplicas = 10
param concurrentRequestsPerReplica = 40
param rateLimitPerMinute = 120
param maxConcurrentCalls = 16
param shutdownDrainSeconds = 30
param redisSku = 'Standard'
param redisCapacity = 1
