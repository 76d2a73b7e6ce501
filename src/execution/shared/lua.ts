// The shared budget's Lua scripts: the pure kernel's decisions (budget.ts tryConsume, onRateLimited)
// run inside Redis, so a request's weights are reserved in all its windows (IP, UID, order rate) in
// one atomic step for every process of an account.
//
// Keys (one Redis Cluster hash slot per account: `capibot:budget:{ACCOUNT}:…`):
//   KEYS[1] state   hash: clock, backoffUntil, factorAtShrink, shrunkAt, strikes, sums, totals, epoch
//   KEYS[2] weights list of "t:ip:uid", oldest first (the kernel's two-dimension window log)
//   KEYS[3] orders  list of "t", oldest first (order-rate-capped requests)
//   KEYS[4] members sorted set: member id → time of its last contact
//   KEYS[5] shares  hash: member id → N, the member count it was told (its fallback share is 1/N)
//   KEYS[6] cancels sorted set: member id → the time until which a cancel of that member waits for
//           room (its deadline); on Redis' clock the key also expires (PX) at the latest deadline
//
// Every script receives the budget config in ARGV[1..11] (CONFIG_ARGS order) and `now` in ARGV[12]:
// an explicit time (tests drive the script in lockstep with the kernel) or "" for Redis' TIME.
// Numbers go back as strings formatted %.17g: Redis would truncate a Lua number to an integer.
//
// Invariants (the same as the kernel's; see budget.ts):
// - an entry recorded at t counts while now − t < window + guard; the state's clock never steps back;
// - with no stale member and no cancel waiting, every decision equals tryConsume's, whatever
//   cancelReserve is; a cancel's decision always does (it may use the whole pool) (property-tested);
// - cancel priority across processes costs nothing while no cancel waits: a cancel refused for lack
//   of room marks itself waiting (KEYS[6], deadline = now + its wait + a margin, so the mark of a
//   process that died lapses by itself); while any mark stands, non-cancel requests of every member
//   leave floor(limit × cancelReserve) of each pool to cancels; a granted cancel clears its member's
//   mark, as do leaving and being forgotten;
// - stale members' fallback shares are held back from everyone else (fallback.ts).

/** The order of the config values in ARGV (1-based in Lua). */
export const CONFIG_ARGS = [
  'windowMs',
  'guardMs',
  'orderRateWindowMs',
  'ipWeightPerWindow',
  'uidWeightPerWindow',
  'orderRequestsPerSecond',
  'safetyMargin',
  'cancelReserve',
  'staleAfterMs',
  'memberTtlMs',
  'recoveryPerSecond',
] as const;

const PRELUDE = `
local S, WL, OL, M, SH, CW = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local windowMs, guardMs, orderWinMs = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local ipPer, uidPer, ordPer = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local margin, cancelReserve = tonumber(ARGV[7]), tonumber(ARGV[8])
local staleMs, ttlMs, rps = tonumber(ARGV[9]), tonumber(ARGV[10]), tonumber(ARGV[11])
local now
if ARGV[12] ~= '' then now = tonumber(ARGV[12]) else
  local tm = redis.call('TIME'); now = tonumber(tm[1]) * 1000 + math.floor(tonumber(tm[2]) / 1000)
end
local NEG = -math.huge
local function fmt(x) return string.format('%.17g', x) end
local function num(field, default)
  local v = redis.call('HGET', S, field)
  if v then return tonumber(v) end
  return default
end
-- A fresh state (first use, or Redis lost its data): a new epoch. When the caller knew an older one,
-- Redis restarted under running processes, whose grants of the last window it no longer sees: the
-- pool is closed for one window so that all of them have expired before anyone is granted again.
local knownEpoch = ARGV[13]
local epoch = redis.call('HGET', S, 'epoch')
local restarted = 0
if not epoch then
  epoch = fmt(now)
  redis.call('HSET', S, 'epoch', epoch)
  if knownEpoch ~= '' then
    restarted = 1
    redis.call('HSET', S, 'backoffUntil', fmt(math.max(num('backoffUntil', NEG), now + windowMs + guardMs)))
  end
end
local t = math.max(now, num('clock', NEG))
local wlen, olen = windowMs + guardMs, orderWinMs + guardMs
local function floorLimit(x) return math.floor(x + 1e-9) end
local function factorAt(at)
  local fs = num('factorAtShrink', 1)
  if fs >= 1 then return 1 end
  return math.min(1, fs + ((at - num('shrunkAt', NEG)) / 1000) * rps)
end
local function eff(per, f) return math.max(1, floorLimit(per * margin * f)) end
-- Drops expired entries (time <= at - len) from the head of a list and from its running sums.
local function expireWeights(at)
  local ip, uid = num('sumIp', 0), num('sumUid', 0)
  while true do
    local head = redis.call('LINDEX', WL, 0)
    if not head then break end
    local et, ew1, ew2 = string.match(head, '^([^:]+):([^:]+):([^:]+)$')
    if tonumber(et) > at - wlen then break end
    redis.call('LPOP', WL)
    ip = ip - tonumber(ew1); uid = uid - tonumber(ew2)
  end
  redis.call('HSET', S, 'sumIp', fmt(ip), 'sumUid', fmt(uid))
  return ip, uid
end
local function expireOrders(at)
  local n = num('sumOrd', 0)
  while true do
    local head = redis.call('LINDEX', OL, 0)
    if not head then break end
    if tonumber(head) > at - olen then break end
    redis.call('LPOP', OL)
    n = n - 1
  end
  redis.call('HSET', S, 'sumOrd', fmt(n))
  return n
end
-- fitTime of core/sliding-window.ts: the earliest time >= at when cost fits under limit.
local function fitWeights(at, sum, dim, cost, limit)
  if cost > limit then return math.huge end
  local excess = sum + cost - limit
  if excess <= 0 then return at end
  local acc = 0
  local entries = redis.call('LRANGE', WL, 0, -1)
  for i = 1, #entries do
    local et, ew1, ew2 = string.match(entries[i], '^([^:]+):([^:]+):([^:]+)$')
    if dim == 1 then acc = acc + tonumber(ew1) else acc = acc + tonumber(ew2) end
    if acc >= excess then return math.max(at, tonumber(et) + wlen) end
  end
  return math.huge
end
local function fitOrders(at, sum, limit)
  if 1 > limit then return math.huge end
  local excess = sum + 1 - limit
  if excess <= 0 then return at end
  local entries = redis.call('LRANGE', OL, 0, excess - 1)
  if #entries < excess then return math.huge end
  return math.max(at, tonumber(entries[excess]) + olen)
end
-- Members: drop those silent for ttlMs (and their shares); the others' fallback shares are held
-- back while they are stale. A share is a fraction of the budget (SH), 0 < share <= 1/N.
local function pruneMembers(at)
  local gone = redis.call('ZRANGEBYSCORE', M, '-inf', '(' .. fmt(at - ttlMs))
  for i = 1, #gone do
    redis.call('ZREM', M, gone[i])
    redis.call('HDEL', SH, gone[i])
    redis.call('ZREM', CW, gone[i])
  end
end
local function heldBack(per, share)
  if share <= 0 then return 0 end
  return math.max(1, floorLimit(per * (margin * share)))
end
local function staleShares(at, self)
  pruneMembers(at)
  local ip, uid, ord = 0, 0, 0
  local stale = redis.call('ZRANGEBYSCORE', M, '-inf', '(' .. fmt(at - staleMs))
  for i = 1, #stale do
    if stale[i] ~= self then
      local share = tonumber(redis.call('HGET', SH, stale[i]) or '0')
      ip = ip + heldBack(ipPer, share)
      uid = uid + heldBack(uidPer, share)
      ord = ord + heldBack(ordPer, share)
    end
  end
  return ip, uid, ord, #stale
end
`;

/**
 * reserve: ARGV[14] member id, [15] IP weight, [16] UID weight, [17] order-rate capped (0/1),
 * [18] cancel (0/1), [19] how long a refused cancel's mark outlives its wait (ms). Returns { status,
 * waitMs, epoch, ipUsed, uidUsed, ordUsed, ipLimit, uidLimit, ordLimit, members, cancelWaiting,
 * heldBack }: status "granted", "wait" or "epoch" (the caller's epoch is stale: rejoin first);
 * cancelWaiting 1 when a cancel (of any member) waits after this decision; heldBack 1 when this
 * non-cancel request was refused only because it left the reserve to a waiting cancel.
 */
export const RESERVE_LUA = `${PRELUDE}
local self = ARGV[14]
local cIp, cUid, capped, isCancel = tonumber(ARGV[15]), tonumber(ARGV[16]), ARGV[17] == '1', ARGV[18] == '1'
local markMarginMs = tonumber(ARGV[19])
if restarted == 1 or (knownEpoch ~= '' and knownEpoch ~= epoch) then
  return {'epoch', '0', epoch, '0', '0', '0', '0', '0', '0', '0', '0', '0'}
end
redis.call('ZADD', M, fmt(now), self)
local ipUsed, uidUsed = expireWeights(t)
local ordUsed = expireOrders(t)
local f = factorAt(t)
local sIp, sUid, sOrd = staleShares(t, self)
local lIp, lUid, lOrd = eff(ipPer, f), eff(uidPer, f), eff(ordPer, f)
local mIp, mUid, mOrd = lIp - sIp, lUid - sUid, lOrd - sOrd
-- Marks whose deadline has passed have lapsed (their cancel got through unseen, or its process died).
redis.call('ZREMRANGEBYSCORE', CW, '-inf', fmt(t))
local cancelWaits = redis.call('ZCARD', CW) > 0
-- The earliest time >= t when the request fits under the given limits (weights and order rate).
local function roomAt(limIp, limUid, limOrd)
  local at = t
  if cIp > 0 then at = math.max(at, fitWeights(t, ipUsed, 1, cIp, limIp)) end
  if cUid > 0 then at = math.max(at, fitWeights(t, uidUsed, 2, cUid, limUid)) end
  if capped then at = math.max(at, fitOrders(t, ordUsed, limOrd)) end
  return at
end
local backoffUntil = num('backoffUntil', NEG)
-- The whole pool (stale shares held back): a cancel's always; a non-cancel's while no cancel waits.
local fullRoom = roomAt(mIp, mUid, mOrd)
local room = fullRoom
local heldBack = 0
if cancelWaits and not isCancel then
  room = roomAt(mIp - floorLimit(lIp * cancelReserve), mUid - floorLimit(lUid * cancelReserve),
    mOrd - floorLimit(lOrd * cancelReserve))
  if room > t and math.max(fullRoom, backoffUntil) <= t then heldBack = 1 end
end
local fitsAt = math.max(room, backoffUntil)
redis.call('HSET', S, 'clock', fmt(t))
local members = redis.call('ZCARD', M)
if isCancel then
  if fitsAt <= t then
    redis.call('ZREM', CW, self)
  elseif fullRoom > t then
    -- Refused for lack of room (not only a back-off): this member's cancel waits until it retries.
    -- Past that deadline (+ margin) the mark lapses by itself; a wait that cannot end as things stand
    -- (-1 below: the caller retries every heartbeat) keeps it for staleAfterMs.
    local deadline = t + staleMs
    if fitsAt ~= math.huge then deadline = fitsAt + markMarginMs end
    redis.call('ZADD', CW, fmt(deadline), self)
    if ARGV[12] == '' then
      -- On Redis' clock the key itself expires with the last deadline (explicit times, in tests:
      -- the deadlines alone decide).
      local last = redis.call('ZRANGE', CW, -1, -1, 'WITHSCORES')
      redis.call('PEXPIRE', CW, math.max(1, math.ceil(tonumber(last[2]) - now)))
    end
  end
  cancelWaits = redis.call('ZCARD', CW) > 0
end
local waiting = '0'
if cancelWaits then waiting = '1' end
if fitsAt > t then
  -- -1: it cannot fit while things stand (stale members' shares held back); the caller retries later.
  local w = fitsAt - t
  if w == math.huge then w = -1 end
  return {'wait', fmt(w), epoch, fmt(ipUsed), fmt(uidUsed), fmt(ordUsed), fmt(lIp), fmt(lUid), fmt(lOrd), tostring(members), waiting, tostring(heldBack)}
end
if cIp > 0 or cUid > 0 then
  redis.call('RPUSH', WL, fmt(t) .. ':' .. fmt(cIp) .. ':' .. fmt(cUid))
  ipUsed = ipUsed + cIp; uidUsed = uidUsed + cUid
  redis.call('HSET', S, 'sumIp', fmt(ipUsed), 'sumUid', fmt(uidUsed))
end
if capped then
  redis.call('RPUSH', OL, fmt(t))
  ordUsed = ordUsed + 1
  redis.call('HSET', S, 'sumOrd', fmt(ordUsed))
end
redis.call('HINCRBYFLOAT', S, 'totIp', cIp)
redis.call('HINCRBYFLOAT', S, 'totUid', cUid)
redis.call('HINCRBY', S, 'totReq', 1)
return {'granted', '0', epoch, fmt(ipUsed), fmt(uidUsed), fmt(ordUsed), fmt(lIp), fmt(lUid), fmt(lOrd), tostring(members), waiting, '0'}
`;

/**
 * rateLimited (a 429 seen by any member, budget.ts onRateLimited): ARGV[14] rateLimitShrink,
 * [15] minFactor, [16] backoffMs, [17] maxBackoffMs, [18] retryAfterMs. Returns the new backoffUntil.
 */
export const RATE_LIMITED_LUA = `${PRELUDE}
local shrink, minFactor = tonumber(ARGV[14]), tonumber(ARGV[15])
local backoffMs, maxBackoffMs, retryAfter = tonumber(ARGV[16]), tonumber(ARGV[17]), tonumber(ARGV[18])
local factor = math.max(minFactor, factorAt(t) * shrink)
local strikes = 1
if t - num('shrunkAt', NEG) < windowMs then strikes = num('strikes', 0) + 1 end
local backoff = math.min(maxBackoffMs, backoffMs * 2 ^ (strikes - 1))
local bUntil = math.max(num('backoffUntil', NEG), t + math.max(backoff, retryAfter))
redis.call('HSET', S, 'clock', fmt(t), 'factorAtShrink', fmt(factor), 'shrunkAt', fmt(t),
  'strikes', fmt(strikes), 'backoffUntil', fmt(bUntil))
return {fmt(bUntil)}
`;

/**
 * heartbeat (and rejoin): ARGV[14] member id, [15] IP, [16] UID weight and [17] order requests this
 * member granted while Redis could not see it (replayed as one entry at now: later than the real ones,
 * so never less strict), [18] 1 when the caller learned the epoch changed (it then also closes the
 * pool for one window: its own grants before were lost), [19…] pairs (member id, share) it knew,
 * re-registered as stale when missing (their fallback shares stay held back after a Redis restart).
 *
 * The member's share becomes min(1/N, 1 − the others' shares): the shares never sum past the whole
 * budget, even while members join and the others have not yet heard of it (they shrink to 1/N at
 * their next heartbeat, and the newcomer grows to its 1/N at its own next one).
 * Returns { epoch, members, share, ipUsed, uidUsed, ordUsed, restarted, id1, share1, id2, … }.
 */
export const HEARTBEAT_LUA = `${PRELUDE}
local self = ARGV[14]
local rIp, rUid, rOrd = tonumber(ARGV[15]), tonumber(ARGV[16]), tonumber(ARGV[17])
if ARGV[18] == '1' then
  redis.call('HSET', S, 'backoffUntil', fmt(math.max(num('backoffUntil', NEG), now + windowMs + guardMs)))
end
for i = 19, #ARGV - 1, 2 do
  if ARGV[i] ~= self and not redis.call('ZSCORE', M, ARGV[i]) then
    redis.call('ZADD', M, fmt(now - staleMs - 1), ARGV[i])
    redis.call('HSET', SH, ARGV[i], ARGV[i + 1])
  end
end
local ipUsed, uidUsed = expireWeights(t)
local ordUsed = expireOrders(t)
if rIp > 0 or rUid > 0 then
  redis.call('RPUSH', WL, fmt(t) .. ':' .. fmt(rIp) .. ':' .. fmt(rUid))
  ipUsed = ipUsed + rIp; uidUsed = uidUsed + rUid
  redis.call('HSET', S, 'sumIp', fmt(ipUsed), 'sumUid', fmt(uidUsed))
end
for i = 1, rOrd do redis.call('RPUSH', OL, fmt(t)) end
ordUsed = ordUsed + rOrd
redis.call('HSET', S, 'sumOrd', fmt(ordUsed), 'clock', fmt(t))
redis.call('ZADD', M, fmt(now), self)
pruneMembers(t)
local ids = redis.call('ZRANGE', M, 0, -1)
local others = 0
for i = 1, #ids do
  if ids[i] ~= self then others = others + tonumber(redis.call('HGET', SH, ids[i]) or '0') end
end
local share = math.max(0, math.min(1 / #ids, 1 - others))
redis.call('HSET', SH, self, fmt(share))
local out = {epoch, tostring(#ids), fmt(share), fmt(ipUsed), fmt(uidUsed), fmt(ordUsed), tostring(restarted)}
for i = 1, #ids do
  out[#out + 1] = ids[i]
  out[#out + 1] = redis.call('HGET', SH, ids[i]) or '0'
end
return out
`;

/** leave (graceful stop): ARGV[14] member id. Its share is no longer held back, its cancel no longer waits. */
export const LEAVE_LUA = `${PRELUDE}
redis.call('ZREM', M, ARGV[14])
redis.call('HDEL', SH, ARGV[14])
redis.call('ZREM', CW, ARGV[14])
return {epoch}
`;
