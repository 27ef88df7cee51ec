// The SurfSense plugin host on Azure Container Apps: the host (several
// replicas behind one ingress), Redis shared by the replicas (Azure Cache for
// Redis), SearXNG as an internal app for google-search's fallback, a headless
// Chromium beside each host replica (a second container of the host app, for
// web-crawl's render), and a Log Analytics workspace. Secrets come from Key Vault through a user-assigned
// managed identity. See README.md beside this file.
//
//   az deployment group create -g <rg> -f deploy/main.bicep -p deploy/main.example.bicepparam

targetScope = 'resourceGroup'

@description('Azure region of every resource.')
param location string = resourceGroup().location

@description('Prefix of resource names (letters, digits and dashes).')
@minLength(3)
@maxLength(16)
param namePrefix string = 'surfsense-ph'

@description('The host image, e.g. myregistry.azurecr.io/pluginhost:1.2.3 (built from the Dockerfile at the repository root).')
param hostImage string

@description('Login server of the registry holding hostImage (pulled with the managed identity), e.g. myregistry.azurecr.io. Empty for a public image.')
param registryServer string = ''

@description('SearXNG image. Pin a tag you have tested.')
param searxngImage string = 'docker.io/searxng/searxng:latest'

@description('Headless Chromium image of the browser container beside the host (web-crawl\'s render). Pin a version tag you have tested, e.g. docker.io/chromedp/headless-shell:141.0.7390.54.')
param browserImage string = 'docker.io/chromedp/headless-shell:stable'

@description('Pages rendered at once per replica (RENDER_CONCURRENCY); the browser container gets about half a CPU per page.')
@minValue(1)
@maxValue(32)
param renderConcurrency int = 2

@description('The public origin of the host (PUBLIC_URL), e.g. https://plugins.surfsense.com.')
param publicUrl string = 'https://plugins.surfsense.com'

@description('An existing Key Vault (RBAC authorisation) in this resource group holding the secrets keygen-url, keygen-account and proxy-urls; this template writes redis-url into it.')
param keyVaultName string

@description('Fewest host replicas (at least 1).')
@minValue(1)
param minReplicas int = 1

@description('Most host replicas.')
@minValue(1)
param maxReplicas int = 10

@description('Concurrent HTTP requests per replica before another replica is added. Tool calls are long (seconds to minutes), so this is low.')
param concurrentRequestsPerReplica int = 40

@description('Tool calls per license per plugin per minute (RATE_LIMIT_PER_MINUTE).')
param rateLimitPerMinute int = 120

@description('Tool calls in flight per license (MAX_CONCURRENT_CALLS).')
param maxConcurrentCalls int = 16

@description('Upstream pages fetched or parsed at once per replica, all plugins together (MAX_PAGES_IN_FLIGHT).')
@minValue(1)
param maxPagesInFlight int = 1024

@description('Bytes those pages may hold per replica while read and parsed (PAGES_MEMORY): a quarter of the 1Gi host container.')
param pagesMemory string = '256MiB'

@description('How long in-flight calls may finish after SIGTERM (SHUTDOWN_DRAIN, seconds). The platform waits 10 s more before killing.')
@minValue(1)
@maxValue(590)
param shutdownDrainSeconds int = 30

@description('Azure Cache for Redis SKU: Basic (no replica, no SLA: test only) or Standard (a replica, SLA).')
@allowed(['Basic', 'Standard'])
param redisSku string = 'Standard'

@description('Azure Cache for Redis size (C0 = 250 MB, C1 = 1 GB, …).')
@minValue(0)
@maxValue(6)
param redisCapacity int = 1

@description('Secret SearXNG signs its cookies with; a new one on each deployment unless given.')
@secure()
param searxngSecret string = newGuid()

@description('Days Log Analytics keeps logs.')
param logRetentionDays int = 30

var hostPort = 8000
var metricsPort = 9090
// The browser's DevTools port, on the replica's own loopback: the containers
// of one app share a network namespace, and no ingress names this port.
var browserPort = 9222
var names = {
  logs: '${namePrefix}-logs'
  identity: '${namePrefix}-id'
  env: '${namePrefix}-env'
  redis: '${namePrefix}-redis-${uniqueString(resourceGroup().id)}'
  host: '${namePrefix}-host'
  searxng: '${namePrefix}-searxng'
}

// ---------- logs

resource logs 'Microsoft.OperationalInsights/workspaces@2023-09-01' = {
  name: names.logs
  location: location
  properties: {
    sku: { name: 'PerGB2018' }
    retentionInDays: logRetentionDays
  }
}

// ---------- identity and secrets

resource identity 'Microsoft.ManagedIdentity/userAssignedIdentities@2023-01-31' = {
  name: names.identity
  location: location
}

resource vault 'Microsoft.KeyVault/vaults@2023-07-01' existing = {
  name: keyVaultName
}

// Key Vault Secrets User: read secret values.
var secretsUserRole = subscriptionResourceId('Microsoft.Authorization/roleDefinitions', '4633458b-17de-408a-b874-0445c86b69e6')

resource identityReadsSecrets 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(vault.id, identity.id, secretsUserRole)
  scope: vault
  properties: {
    roleDefinitionId: secretsUserRole
    principalId: identity.properties.principalId
    principalType: 'ServicePrincipal'
  }
}

// AcrPull on the registry when the image is private (same resource group).
var acrPullRole = subscriptionResourceId('Microsoft.Authorization/roleDefinitions', '7f951dda-4ed3-4680-a7ca-43fe172d538d')
var registryName = empty(registryServer) ? '' : split(registryServer, '.')[0]

resource registry 'Microsoft.ContainerRegistry/registries@2023-07-01' existing = if (!empty(registryServer)) {
  name: registryName
}

resource identityPullsImages 'Microsoft.Authorization/roleAssignments@2022-04-01' = if (!empty(registryServer)) {
  name: guid(resourceGroup().id, registryName, identity.id, acrPullRole)
  scope: registry
  properties: {
    roleDefinitionId: acrPullRole
    principalId: identity.properties.principalId
    principalType: 'ServicePrincipal'
  }
}

// ---------- Redis

resource redis 'Microsoft.Cache/redis@2024-03-01' = {
  name: names.redis
  location: location
  properties: {
    sku: {
      name: redisSku
      family: 'C'
      capacity: redisCapacity
    }
    enableNonSslPort: false
    minimumTlsVersion: '1.2'
    publicNetworkAccess: 'Enabled'
    redisVersion: '6'
    redisConfiguration: {
      // Nothing here needs to survive a restart: verdicts are fetched again,
      // calls re-register by heartbeat, limits restart their window.
      'maxmemory-policy': 'volatile-lru'
    }
  }
}

// REDIS_URL, written into the vault so that the app reads it like every
// other secret. TLS on 6380; the access key is the password.
resource redisUrlSecret 'Microsoft.KeyVault/vaults/secrets@2023-07-01' = {
  parent: vault
  name: 'redis-url'
  properties: {
    value: 'rediss://:${redis.listKeys().primaryKey}@${redis.properties.hostName}:${redis.properties.sslPort}/0'
    contentType: 'text/plain'
  }
}

// ---------- Container Apps environment

resource env 'Microsoft.App/managedEnvironments@2024-03-01' = {
  name: names.env
  location: location
  properties: {
    appLogsConfiguration: {
      destination: 'log-analytics'
      logAnalyticsConfiguration: {
        customerId: logs.properties.customerId
        sharedKey: logs.listKeys().primarySharedKey
      }
    }
    workloadProfiles: [
      {
        name: 'Consumption'
        workloadProfileType: 'Consumption'
      }
    ]
  }
}

// ---------- SearXNG (internal: only the host reaches it)

var searxngEnv = [
  { name: 'SEARXNG_SETTINGS_PATH', value: '/etc/searxng-config/settings.yml' }
  { name: 'SEARXNG_SECRET', secretRef: 'searxng-secret' }
  { name: 'SEARXNG_BASE_URL', value: 'https://${names.searxng}.internal.${env.properties.defaultDomain}/' }
]

resource searxng 'Microsoft.App/containerApps@2024-03-01' = {
  name: names.searxng
  location: location
  properties: {
    environmentId: env.id
    workloadProfileName: 'Consumption'
    configuration: {
      activeRevisionsMode: 'Single'
      ingress: {
        external: false
        targetPort: 8080
        transport: 'http'
        allowInsecure: false
      }
      secrets: [
        { name: 'searxng-secret', value: searxngSecret }
        { name: 'searxng-settings', value: loadTextContent('searxng/settings.yml') }
      ]
    }
    template: {
      containers: [
        {
          name: 'searxng'
          image: searxngImage
          resources: { cpu: json('0.5'), memory: '1Gi' }
          env: searxngEnv
          volumeMounts: [
            { volumeName: 'settings', mountPath: '/etc/searxng-config' }
          ]
          probes: [
            {
              type: 'Readiness'
              httpGet: { path: '/healthz', port: 8080 }
              periodSeconds: 10
            }
          ]
        }
      ]
      volumes: [
        {
          name: 'settings'
          storageType: 'Secret'
          secrets: [
            { secretRef: 'searxng-settings', path: 'settings.yml' }
          ]
        }
      ]
      scale: {
        minReplicas: 1
        maxReplicas: 3
        rules: [
          {
            name: 'http'
            http: { metadata: { concurrentRequests: '30' } }
          }
        ]
      }
    }
  }
}

// ---------- the host

// Every variable here is one the host reads (deploy_test.go checks it
// against host.EnvVars).
var hostEnv = [
  { name: 'ADDR', value: '0.0.0.0:${hostPort}' }
  { name: 'PUBLIC_URL', value: publicUrl }
  { name: 'METRICS_ADDR', value: '0.0.0.0:${metricsPort}' }
  { name: 'LICENSE_BACKEND', value: 'keygen' }
  { name: 'KEYGEN_URL', secretRef: 'keygen-url' }
  { name: 'KEYGEN_ACCOUNT', secretRef: 'keygen-account' }
  { name: 'LICENSE_CACHE_TTL', value: '5m' }
  { name: 'LICENSE_GRACE', value: '24h' }
  { name: 'REDIS_URL', secretRef: 'redis-url' }
  { name: 'SEARXNG_URL', value: 'https://${searxng.properties.configuration.ingress.fqdn}' }
  { name: 'PROXY_URLS', secretRef: 'proxy-urls' }
  { name: 'RATE_LIMIT_PER_MINUTE', value: string(rateLimitPerMinute) }
  { name: 'MAX_CONCURRENT_CALLS', value: string(maxConcurrentCalls) }
  { name: 'MAX_PAGES_IN_FLIGHT', value: string(maxPagesInFlight) }
  { name: 'PAGES_MEMORY', value: pagesMemory }
  { name: 'RESULT_MAX_BYTES', value: '65536' }
  { name: 'CALL_DEADLINE', value: '240s' }
  { name: 'TASK_DEADLINE', value: '30m' }
  { name: 'TASK_AFTER', value: '5s' }
  { name: 'SHUTDOWN_DRAIN', value: '${shutdownDrainSeconds}s' }
  { name: 'RENDERER_URL', value: 'http://127.0.0.1:${browserPort}' }
  { name: 'RENDER_CONCURRENCY', value: string(renderConcurrency) }
]

// The browser container's switches: scrapers/render.GuardFlags (deploy_test.go
// checks they are the same). Every page's traffic goes through the host's
// guarding proxy; these make sure nothing else leaves the browser.
var browserArgs = [
  '--disable-quic'
  '--disable-background-networking'
  '--disable-component-update'
  '--disable-sync'
  '--disable-domain-reliability'
  '--no-pings'
  '--block-new-web-contents'
  '--deny-permission-prompts'
  '--disable-notifications'
  '--mute-audio'
  '--force-webrtc-ip-handling-policy=disable_non_proxied_udp'
  '--webrtc-ip-handling-policy=disable_non_proxied_udp'
  '--proxy-server=http://127.0.0.1:9'
  '--proxy-bypass-list=<-loopback>'
  '--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1'
  '--disable-features=Translate,MediaRouter,OptimizationHints,DialMediaRouteProvider,AutofillServerCommunication,CertificateTransparencyComponentUpdater,InterestFeedContentSuggestions,DnsOverHttps'
]

resource hostApp 'Microsoft.App/containerApps@2024-03-01' = {
  name: names.host
  location: location
  identity: {
    type: 'UserAssigned'
    userAssignedIdentities: { '${identity.id}': {} }
  }
  dependsOn: [identityReadsSecrets, identityPullsImages, redisUrlSecret]
  properties: {
    environmentId: env.id
    workloadProfileName: 'Consumption'
    configuration: {
      activeRevisionsMode: 'Single'
      ingress: {
        external: true
        targetPort: hostPort
        transport: 'auto'
        allowInsecure: false
        traffic: [
          { latestRevision: true, weight: 100 }
        ]
      }
      registries: empty(registryServer) ? [] : [
        { server: registryServer, identity: identity.id }
      ]
      secrets: [
        { name: 'keygen-url', keyVaultUrl: '${vault.properties.vaultUri}secrets/keygen-url', identity: identity.id }
        { name: 'keygen-account', keyVaultUrl: '${vault.properties.vaultUri}secrets/keygen-account', identity: identity.id }
        { name: 'proxy-urls', keyVaultUrl: '${vault.properties.vaultUri}secrets/proxy-urls', identity: identity.id }
        { name: 'redis-url', keyVaultUrl: '${vault.properties.vaultUri}secrets/redis-url', identity: identity.id }
      ]
    }
    template: {
      // SHUTDOWN_DRAIN, then a margin before the platform kills.
      terminationGracePeriodSeconds: shutdownDrainSeconds + 10
      containers: [
        {
          name: 'pluginhost'
          image: hostImage
          args: ['serve']
          resources: { cpu: json('1.0'), memory: '2Gi' }
          env: hostEnv
          probes: [
            {
              // Up to 60 s to start (the registry is verified at start).
              type: 'Startup'
              httpGet: { path: '/readyz', port: hostPort }
              initialDelaySeconds: 1
              periodSeconds: 2
              failureThreshold: 30
              timeoutSeconds: 2
            }
            {
              // Only the process: Redis or Keygen faults never restart a replica.
              type: 'Liveness'
              httpGet: { path: '/healthz', port: hostPort }
              periodSeconds: 10
              failureThreshold: 3
              timeoutSeconds: 2
            }
            {
              // 503 while starting or draining after SIGTERM; 200 with Redis degraded.
              type: 'Readiness'
              httpGet: { path: '/readyz', port: hostPort }
              periodSeconds: 5
              failureThreshold: 2
              timeoutSeconds: 2
            }
          ]
        }
        {
          // Headless Chromium for web-crawl's render (RENDERER_URL). It
          // shares the replica's loopback with the host, sends every page
          // through the host's guarding proxy, and is restarted by the
          // platform when DevTools stops answering; the host opens a new
          // connection at its next render.
          name: 'browser'
          image: browserImage
          args: browserArgs
          resources: { cpu: json('1.0'), memory: '2Gi' }
          probes: [
            {
              // DevTools answers /json/version; a browser that stopped
              // answering (not just one whose port is open) is restarted.
              type: 'Liveness'
              httpGet: { path: '/json/version', port: browserPort }
              periodSeconds: 10
              failureThreshold: 3
              timeoutSeconds: 3
            }
          ]
        }
      ]
      scale: {
        minReplicas: minReplicas
        maxReplicas: maxReplicas
        rules: [
          {
            name: 'http-concurrency'
            http: { metadata: { concurrentRequests: string(concurrentRequestsPerReplica) } }
          }
        ]
      }
    }
  }
}

output hostUrl string = 'https://${hostApp.properties.configuration.ingress.fqdn}'
output searxngInternalUrl string = 'https://${searxng.properties.configuration.ingress.fqdn}'
output redisHost string = redis.properties.hostName
output identityClientId string = identity.properties.clientId
