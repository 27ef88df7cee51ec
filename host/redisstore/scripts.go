package redisstore

import "github.com/redis/go-redis/v9"

// Every script reads the clock with TIME on the Redis server, so that the
// replicas' own clocks never matter. Times are in milliseconds.
const luaNow = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`

// scriptAllow is a sliding one-minute window per license and plugin.
// KEYS[1] the window; ARGV[1] the limit, ARGV[2] a unique member, ARGV[3] the
// window in ms. Returns {1, 0} when allowed, {0, ms until one is} when not.
var scriptAllow = redis.NewScript(luaNow + `
local window = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[1]) then
  redis.call('ZADD', KEYS[1], now, ARGV[2])
  redis.call('PEXPIRE', KEYS[1], window)
  return {1, 0}
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local wait = tonumber(oldest[2]) + window - now
if wait < 1 then wait = 1 end
return {0, wait}
`)

// scriptAcquire takes one of ARGV[1] slots in the set KEYS[1], whose scores
// are expiry times: ARGV[2] the slot's lifetime in ms, ARGV[3] its member.
// Returns 1 when taken, 0 when all are.
var scriptAcquire = redis.NewScript(luaNow + `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then
  return 0
end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
`)

// scriptRefresh (re)registers members: KEYS[i] holds ARGV[i+1]; ARGV[1] is
// the lifetime in ms. It also restores registrations a restarted Redis lost.
var scriptRefresh = redis.NewScript(luaNow + `
local ttl = tonumber(ARGV[1])
for i, k in ipairs(KEYS) do
  redis.call('ZADD', k, now + ttl, ARGV[i + 1])
  redis.call('PEXPIRE', k, ttl)
end
return #KEYS
`)

// scriptCancel drops expired registrations of KEYS[1], publishes ARGV[2] on
// channel ARGV[1], and returns the members registered at that moment.
var scriptCancel = redis.NewScript(luaNow + `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local members = redis.call('ZRANGE', KEYS[1], 0, -1)
redis.call('PUBLISH', ARGV[1], ARGV[2])
return members
`)

// scriptLive returns those of ARGV's members KEYS[1] still holds unexpired.
var scriptLive = redis.NewScript(luaNow + `
local live = {}
for _, m in ipairs(ARGV) do
  local sc = redis.call('ZSCORE', KEYS[1], m)
  if sc and tonumber(sc) > now then live[#live + 1] = m end
end
return live
`)

// scriptUnlock deletes KEYS[1] only when it still holds ARGV[1].
var scriptUnlock = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
`)
