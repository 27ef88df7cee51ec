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

// scriptCacheAcquire answers a result cache lookup or takes its lease.
// KEYS[1] the answer ("<fetched ms>|<json>"), KEYS[2] the lease; ARGV[1] the
// holder, ARGV[2] the lease's lifetime in ms, ARGV[3] the oldest fetch time
// taken (ms). Returns {'hit', answer}, {'lease', ”} when the lease is now
// the holder's, or {'wait', fetched ms of the answer stored, or -1}.
var scriptCacheAcquire = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
local fetched = -1
if v then
  local sep = string.find(v, '|', 1, true)
  if sep then fetched = tonumber(string.sub(v, 1, sep - 1)) or -1 end
  if fetched >= 0 and fetched >= tonumber(ARGV[3]) then
    return {'hit', v}
  end
end
if redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return {'lease', ''}
end
if redis.call('GET', KEYS[2]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[2], ARGV[2])
  return {'lease', ''}
end
return {'wait', tostring(fetched)}
`)

// scriptCacheRenew extends the lease KEYS[1] by ARGV[2] ms when ARGV[1]
// holds it; returns 1, else 0.
var scriptCacheRenew = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
`)

// scriptCacheFinish stores ARGV[2] (unless empty) under KEYS[1] for ARGV[3]
// ms, frees the lease KEYS[2] when ARGV[1] holds it, and publishes ARGV[5]
// on channel ARGV[4].
var scriptCacheFinish = redis.NewScript(`
if ARGV[2] ~= '' then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
end
if redis.call('GET', KEYS[2]) == ARGV[1] then
  redis.call('DEL', KEYS[2])
end
redis.call('PUBLISH', ARGV[4], ARGV[5])
return 1
`)

// scriptCount drops the expired members of KEYS[1] (scored by expiry) and
// counts the rest.
var scriptCount = redis.NewScript(luaNow + `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
return redis.call('ZCARD', KEYS[1])
`)

// scriptCancelOne drops expired members of KEYS[1] and returns those whose
// thread (after "|") is ARGV[2], or all when ARGV[2] is empty; when exactly
// one is left it publishes {"l":ARGV[3],"m":member} on channel ARGV[1], for
// the replica that runs it.
var scriptCancelOne = redis.NewScript(luaNow + `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local members = redis.call('ZRANGE', KEYS[1], 0, -1)
local match = {}
local suffix = '|' .. ARGV[2]
for _, m in ipairs(members) do
  if ARGV[2] == '' or string.sub(m, -string.len(suffix)) == suffix then
    match[#match + 1] = m
  end
end
if #match == 1 then
  redis.call('PUBLISH', ARGV[1], cjson.encode({l = ARGV[3], m = match[1]}))
end
return match
`)
