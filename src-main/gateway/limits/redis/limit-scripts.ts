// The Lua scripts that decide limits in Redis. Each runs atomically on the Redis server, so however many
// gateway instances ask at once, each request is checked and counted in one step against what every
// instance counted before it: no instance counts locally first. Time is Redis's own (TIME), the same for
// every instance; a test may pass a fake clock instead (ARGV[1], empty in production).
//
// Per key id K (under the prefix): `K:req` and `K:tok` hold the minute windows as one hash field per second
// (requests, tokens); `K:day:<YYYY-MM-DD>` (usd, tokens, requests) and `K:month:<YYYY-MM>` (usd) the spend;
// `K:held` the reservations (ticket → worst-case nano-USD, with their running sum and count) and
// `K:heldexp` when each lapses, so that the reservations of an instance that died are let go. Figures go back as strings: Redis turns a Lua number
// into an integer.
//
// The operations are not sent one script each: an instance sends every operation it has at a turn of its
// event loop as one batch (script-batch.ts), one EVALSHA of BATCH, which runs them in order, each as if it
// were a script of its own (its KEYS and ARGV), and answers with the list of their answers. Under load one
// round trip decides the admissions, reservations and settlements of many calls at once.

/** Shared head: the clock, the minute window (seconds s-59..s count; a second leaves as s+60 begins), the held sum. */
const COMMON = `
local NANO = 1e9
-- Redis's clock, read once for the whole batch (its operations run within the same few microseconds).
local batchNow
local function clock(arg)
  if arg ~= nil and arg ~= '' then return tonumber(arg) end
  if batchNow == nil then
    local t = redis.call('TIME')
    batchNow = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  end
  return batchNow
end
-- Whether the stored spend was put into this Redis (the marker key), asked once per batch.
local seededMarks = {}
local function seeded(key)
  if seededMarks[key] == nil then seededMarks[key] = redis.call('EXISTS', key) == 1 end
  return seededMarks[key]
end
local function num(value) return tonumber(value) or 0 end
-- An integer as Redis's integer commands read it (a Lua number alone may be sent as 1e+15).
local function int(value) return string.format('%.0f', value) end
-- A figure sent back as the number it is: tostring gives 14 digits, which may round a spend across a
-- budget (the admin view would then disagree with the script's own decision); 17 digits read back exactly.
local function fig(value) return string.format('%.17g', value) end
-- The minute window's total. Beside one field per second with that second's count, the hash keeps '#sum'
-- (the counts of every second it holds) and '#from' (no second before it is held), so a decision reads two
-- fields, not sixty: seconds that left the window are taken out of the sum as it moves on.
local function window(key, now)
  local oldest = math.floor(now / 1000) - 59
  local head = redis.call('HMGET', key, '#sum', '#from')
  local sum, from = tonumber(head[1]), tonumber(head[2])
  if sum ~= nil and from ~= nil and from >= oldest then return sum end
  local stale = {}
  if sum == nil or from == nil or from < oldest - 120 then
    -- New, idle since it expired, or the sum not begun: counted once from the seconds themselves.
    sum = 0
    local all = redis.call('HGETALL', key)
    if #all == 0 then return 0 end
    for i = 1, #all, 2 do
      local at = tonumber(all[i])
      if at ~= nil then
        if at < oldest then stale[#stale + 1] = all[i] else sum = sum + tonumber(all[i + 1]) end
      end
    end
  else
    local seconds = {}
    for at = from, oldest - 1 do seconds[#seconds + 1] = tostring(at) end
    local counts = redis.call('HMGET', key, unpack(seconds))
    for i = 1, #seconds do
      if counts[i] then
        sum = sum - tonumber(counts[i])
        stale[#stale + 1] = seconds[i]
      end
    end
  end
  if #stale > 0 then redis.call('HDEL', key, unpack(stale)) end
  redis.call('HSET', key, '#sum', int(sum), '#from', int(oldest))
  return sum
end
-- When the window's total falls below the limit again (only asked when it is not below it).
local function below_at(key, total, limit, now)
  local oldest = math.floor(now / 1000) - 59
  local all = redis.call('HGETALL', key)
  local buckets = {}
  for i = 1, #all, 2 do
    local at = tonumber(all[i])
    if at ~= nil and at >= oldest then buckets[#buckets + 1] = { at, tonumber(all[i + 1]) } end
  end
  table.sort(buckets, function(a, b) return a[1] < b[1] end)
  for _, bucket in ipairs(buckets) do
    total = total - bucket[2]
    if total < limit then return (bucket[1] + 60) * 1000 end
  end
  return now
end
-- The field of now's second in a minute window (one per clock value: a batch has one).
local secondFields = {}
local function second(now)
  local field = secondFields[now]
  if field == nil then
    field = tostring(math.floor(now / 1000))
    secondFields[now] = field
  end
  return field
end
-- Counts amount in the window's current second (and its sum); the hash lives two minutes past its newest second.
local function count(key, now, amount)
  local text = amount == 1 and '1' or int(amount)
  if redis.call('HINCRBY', key, second(now), text) == amount then redis.call('PEXPIRE', key, 120000) end
  redis.call('HINCRBY', key, '#sum', text)
end
-- Admission's checks (keys: req, tok, day, month): a budget already spent, then the minute windows.
-- → a refusal, or nil with the day's and month's spend as read (0 for a budget the key does not have).
local function admission(keys, rpm, tpm, daily, monthly, now)
  local spentDay, spentMonth = 0, 0
  if daily ~= nil then
    spentDay = num(redis.call('HGET', keys[3], 'usd'))
    if spentDay >= daily then return { 'dailyUsd', fig(spentDay), fig(now) } end
  end
  if monthly ~= nil then
    spentMonth = num(redis.call('HGET', keys[4], 'usd'))
    if spentMonth >= monthly then return { 'monthlyUsd', fig(spentMonth), fig(now) } end
  end
  if rpm ~= nil then
    local used = window(keys[1], now)
    if used >= rpm then return { 'rpm', fig(used), fig(below_at(keys[1], used, rpm, now)), fig(now) } end
  end
  if tpm ~= nil then
    local used = window(keys[2], now)
    if used >= tpm then return { 'tpm', fig(used), fig(below_at(keys[2], used, tpm, now)), fig(now) } end
  end
  return nil, spentDay, spentMonth
end
-- The reservations held (in nano-USD, integers, so that adding and taking back is exact) and how many,
-- kept as running totals in the held hash's '#usd' and '#n' beside each ticket's amount; reservations
-- whose instance stopped renewing them are let go first. Also the amount 'ticket' holds (false if none).
local function held(heldKey, expKey, now, ticket)
  local lapsed = redis.call('ZRANGEBYSCORE', expKey, '-inf', now)
  if #lapsed > 0 then
    local amounts = redis.call('HMGET', heldKey, unpack(lapsed))
    local usd, calls = 0, 0
    for i = 1, #lapsed do
      if amounts[i] then
        usd = usd + tonumber(amounts[i])
        calls = calls + 1
      end
    end
    redis.call('HDEL', heldKey, unpack(lapsed))
    redis.call('ZREM', expKey, unpack(lapsed))
    if calls > 0 then
      redis.call('HINCRBY', heldKey, '#usd', int(-usd))
      redis.call('HINCRBY', heldKey, '#n', int(-calls))
    end
  end
  local sums = redis.call('HMGET', heldKey, '#usd', '#n', ticket)
  return math.max(0, num(sums[1])), math.max(0, num(sums[2])), sums[3]
end
`;

/**
 * Admission. KEYS: req, tok, day, month, seeded. ARGV: now, rpm, tpm, dailyUsd, monthlyUsd ('' = none).
 * → {'ok'} | {'unseeded'} | {'dailyUsd'|'monthlyUsd', spent, now} | {'rpm'|'tpm', used, at, now}.
 * A budget is checked as spent (what calls in flight hold is checked when they reserve); one request is
 * counted in the minute window only when admitted.
 */
const ADMIT = `
if not seeded(KEYS[5]) then return { 'unseeded' } end
local now = clock(ARGV[1])
local rpm, tpm, daily, monthly = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local refused = admission(KEYS, rpm, tpm, daily, monthly, now)
if refused then return refused end
if rpm ~= nil then count(KEYS[1], now, 1) end
return { 'ok' }
`;

/**
 * A call's worst case held against the budgets (replacing what its ticket held). KEYS: day, month, held,
 * heldexp, seeded. ARGV: now, ticket, amount (whole nano-USD), dailyUsd, monthlyUsd, ttlMs.
 * → {'ok'} | {'unseeded'} | {'dailyUsd'|'monthlyUsd', spent, heldUsd, heldCalls, now}.
 */
const RESERVE = `
if not seeded(KEYS[5]) then return { 'unseeded' } end
local now = clock(ARGV[1])
local ticket, amount = ARGV[2], tonumber(ARGV[3])
local daily, monthly, ttl = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local others, calls, mine = held(KEYS[3], KEYS[4], now, ticket)
if mine then
  others = others - tonumber(mine)
  calls = calls - 1
end
if amount > 0 then
  local spentDay = num(redis.call('HGET', KEYS[1], 'usd'))
  if daily ~= nil and spentDay + (others + amount) / NANO > daily then
    return { 'dailyUsd', fig(spentDay), fig(others / NANO), fig(calls), fig(now) }
  end
  if monthly ~= nil then
    local spentMonth = num(redis.call('HGET', KEYS[2], 'usd'))
    if spentMonth + (others + amount) / NANO > monthly then
      return { 'monthlyUsd', fig(spentMonth), fig(others / NANO), fig(calls), fig(now) }
    end
  end
  redis.call('HSET', KEYS[3], ticket, ARGV[3], '#usd', int(others + amount), '#n', int(calls + 1))
  redis.call('ZADD', KEYS[4], now + ttl, ticket)
elseif mine then
  redis.call('HDEL', KEYS[3], ticket)
  redis.call('HSET', KEYS[3], '#usd', int(others), '#n', int(calls))
  redis.call('ZREM', KEYS[4], ticket)
end
return { 'ok' }
`;

/**
 * Finished calls of one key and day (an instance gathers those that finished since its last batch into
 * one): their reservations go, their real cost and tokens are counted. KEYS: tok, day, month, held,
 * heldexp. ARGV: now, countTokens (1/0), tokens, costUsd, requests, then the tickets that may hold a reservation.
 */
const SETTLE = `
local tokens, cost, requests = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
if #ARGV > 5 then
  local tickets = { unpack(ARGV, 6) }
  local held = redis.call('HMGET', KEYS[4], '#usd', '#n', unpack(tickets))
  local usd, gone = 0, {}
  for i = 1, #tickets do
    if held[i + 2] then
      usd = usd + tonumber(held[i + 2])
      gone[#gone + 1] = tickets[i]
    end
  end
  if #gone > 0 then
    redis.call('HDEL', KEYS[4], unpack(gone))
    redis.call('HSET', KEYS[4], '#usd', int(math.max(0, num(held[1]) - usd)), '#n', int(math.max(0, num(held[2]) - #gone)))
    redis.call('ZREM', KEYS[5], unpack(gone))
  end
end
if ARGV[2] == '1' and tokens > 0 then count(KEYS[1], clock(ARGV[1]), tokens) end
if cost > 0 then redis.call('HINCRBYFLOAT', KEYS[2], 'usd', ARGV[4]) end
redis.call('HINCRBY', KEYS[2], 'tokens', ARGV[3])
-- A day's and a month's spend expire some time after they began (set once, not at every call).
local fresh = redis.call('HINCRBY', KEYS[2], 'requests', ARGV[5]) == requests
if fresh then redis.call('EXPIRE', KEYS[2], 3 * 86400) end
if cost > 0 and tonumber(redis.call('HINCRBYFLOAT', KEYS[3], 'usd', ARGV[4])) == cost then fresh = true end
if fresh then redis.call('EXPIRE', KEYS[3], 40 * 86400) end
return 'ok'
`;

/**
 * Finished calls of keys without limits, many at once (an instance sends them in one batch a few times a
 * second, not one script per call: nothing waits on them). KEYS: seeded, then per entry its day and month
 * keys; ARGV: per entry usd, tokens, requests. An unseeded Redis (flushed, restarted) takes nothing: the
 * seed brings the spend from the store and the instance's pending amounts instead.
 */
const SETTLE_MANY = `
if not seeded(KEYS[1]) then return 0 end
local arg = 1
for i = 2, #KEYS, 2 do
  local usd = tonumber(ARGV[arg])
  if usd > 0 then
    redis.call('HINCRBYFLOAT', KEYS[i], 'usd', ARGV[arg])
    redis.call('HINCRBYFLOAT', KEYS[i + 1], 'usd', ARGV[arg])
  end
  redis.call('HINCRBY', KEYS[i], 'tokens', ARGV[arg + 1])
  redis.call('HINCRBY', KEYS[i], 'requests', ARGV[arg + 2])
  redis.call('EXPIRE', KEYS[i], 3 * 86400)
  redis.call('EXPIRE', KEYS[i + 1], 40 * 86400)
  arg = arg + 3
end
return 1
`;

/** One more provider call of an admitted request (a retry, a fallback). KEYS: req. ARGV: now. */
const COUNT_CALL = `
count(KEYS[1], clock(ARGV[1]), 1)
return 'ok'
`;

/** Keeps the reservations of calls still running. KEYS: heldexp of each; ARGV: now, ttlMs, then the tickets. */
const RENEW = `
local now = clock(ARGV[1])
local ttl = tonumber(ARGV[2])
for i = 1, #KEYS do redis.call('ZADD', KEYS[i], 'XX', now + ttl, ARGV[i + 2]) end
return 'ok'
`;

/**
 * How close a key is to its limits. KEYS: req, tok, day, month, held, heldexp, seeded. ARGV: now, rpm, tpm.
 * → {now, requests, rpmAt, tokens, tpmAt, dayUsd, dayTokens, dayRequests, monthUsd, heldUsd, heldCalls} | {'unseeded'}.
 */
const READ = `
if not seeded(KEYS[7]) then return { 'unseeded' } end
local now = clock(ARGV[1])
local rpm, tpm = tonumber(ARGV[2]), tonumber(ARGV[3])
local requests = window(KEYS[1], now)
local tokens = window(KEYS[2], now)
local rpmAt = rpm ~= nil and requests >= rpm and below_at(KEYS[1], requests, rpm, now) or now
local tpmAt = tpm ~= nil and tokens >= tpm and below_at(KEYS[2], tokens, tpm, now) or now
local day = redis.call('HMGET', KEYS[3], 'usd', 'tokens', 'requests')
local heldNanos, heldCalls = held(KEYS[5], KEYS[6], now, '')
local heldUsd = heldNanos / NANO
return { fig(now), fig(requests), fig(rpmAt), fig(tokens), fig(tpmAt), fig(num(day[1])), fig(num(day[2])),
  fig(num(day[3])), fig(num(redis.call('HGET', KEYS[4], 'usd'))), fig(heldUsd), fig(heldCalls) }
`;

/**
 * Puts the stored spend into a Redis that holds none (new, flushed or restarted without a save), once:
 * the first instance to get here adds it and sets the marker; the others find the marker and add nothing.
 * KEYS: seeded, then day and month keys; ARGV: for each day key usd, tokens, requests; for each month key usd
 * (ARGV[1] = how many day keys come first). → 1 when this call seeded, 0 when it was done already.
 */
const SEED = `
if seeded(KEYS[1]) then return 0 end
local days = tonumber(ARGV[1])
local arg = 2
for i = 2, days + 1 do
  if tonumber(ARGV[arg]) > 0 then redis.call('HINCRBYFLOAT', KEYS[i], 'usd', ARGV[arg]) end
  redis.call('HINCRBY', KEYS[i], 'tokens', ARGV[arg + 1])
  redis.call('HINCRBY', KEYS[i], 'requests', ARGV[arg + 2])
  redis.call('EXPIRE', KEYS[i], 3 * 86400)
  arg = arg + 3
end
for i = days + 2, #KEYS do
  if tonumber(ARGV[arg]) > 0 then redis.call('HINCRBYFLOAT', KEYS[i], 'usd', ARGV[arg]) end
  redis.call('EXPIRE', KEYS[i], 40 * 86400)
  arg = arg + 1
end
redis.call('SET', KEYS[1], '1')
seededMarks[KEYS[1]] = true
return 1
`;

/**
 * Admission and the worst case held, for the calls of one key that an instance decides in the same batch:
 * each is decided as if alone and in turn (as ADMIT then RESERVE would; a request refused for its worst
 * case is counted in the minute, as there), but the key's state is read once and written once for all of
 * them. Lapsed reservations are looked for only when a worst case would not fit without letting them go.
 * KEYS: req, tok, day, month, held, heldexp, seeded. ARGV: now, rpm, tpm, dailyUsd, monthlyUsd, ttlMs, then
 * per call its ticket and amount (whole nano-USD, 0 for none).
 * → {'unseeded'} | one answer per call: ADMIT's, or {'held', …RESERVE's refusal} when its worst case does not fit.
 */
const DECIDE = `
if not seeded(KEYS[7]) then return { 'unseeded' } end
local now = clock(ARGV[1])
local rpm, tpm, daily, monthly = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local deadline = int(now + tonumber(ARGV[6]))
-- Nothing is settled between these calls: a budget spent and the token window are the same for each.
local budgetSpent, spentDay, spentMonth = admission(KEYS, nil, nil, daily, monthly, now)
local tokensOver = budgetSpent == nil and tpm ~= nil and admission(KEYS, nil, tpm, nil, nil, now) or nil
local used = budgetSpent == nil and rpm ~= nil and window(KEYS[1], now) or 0
local usedAt
local others, calls
local counted, holds = 0, {}
-- What the calls so far added, written before anything reads it back from Redis.
local function write()
  if counted > 0 then count(KEYS[1], now, counted) end
  counted = 0
  if #holds == 0 then return end
  local deadlines = {}
  for i = 1, #holds, 2 do
    deadlines[i] = deadline
    deadlines[i + 1] = holds[i]
  end
  holds[#holds + 1] = '#usd'
  holds[#holds + 1] = int(others)
  holds[#holds + 1] = '#n'
  holds[#holds + 1] = int(calls)
  redis.call('HSET', KEYS[5], unpack(holds))
  redis.call('ZADD', KEYS[6], unpack(deadlines))
  holds = {}
end
local function over(amount)
  if daily ~= nil and spentDay + (others + amount) / NANO > daily then return 'dailyUsd', spentDay end
  if monthly ~= nil and spentMonth + (others + amount) / NANO > monthly then return 'monthlyUsd', spentMonth end
  return nil
end
local lapsedLooked = false
local answers = {}
local ok = { 'ok' }
for i = 7, #ARGV, 2 do
  local answer = ok
  if budgetSpent ~= nil then answer = budgetSpent
  elseif rpm ~= nil and used >= rpm then
    if usedAt == nil then
      write()
      usedAt = fig(below_at(KEYS[1], used, rpm, now))
    end
    answer = { 'rpm', fig(used), usedAt, fig(now) }
  elseif tokensOver ~= nil then answer = tokensOver
  else
    if rpm ~= nil then
      used = used + 1
      counted = counted + 1
    end
    local amount = tonumber(ARGV[i + 1])
    if amount > 0 then
      if others == nil then
        local sums = redis.call('HMGET', KEYS[5], '#usd', '#n')
        others, calls = math.max(0, num(sums[1])), math.max(0, num(sums[2]))
      end
      local limit, spentNow = over(amount)
      if limit and not lapsedLooked then
        -- It would not fit: what instances that died still hold is let go first (only then worth looking for).
        write()
        others, calls = held(KEYS[5], KEYS[6], now, '')
        lapsedLooked = true
        limit, spentNow = over(amount)
      end
      if limit then answer = { 'held', limit, fig(spentNow), fig(others / NANO), fig(calls), fig(now) }
      else
        others = others + amount
        calls = calls + 1
        holds[#holds + 1] = ARGV[i]
        holds[#holds + 1] = ARGV[i + 1]
      end
    end
  end
  answers[#answers + 1] = answer
end
write()
return answers
`;

const OPERATIONS = { admit: ADMIT, decide: DECIDE, reserve: RESERVE, settle: SETTLE, settleMany: SETTLE_MANY, countCall: COUNT_CALL, renew: RENEW, read: READ, seed: SEED };
export type LimitOperation = keyof typeof OPERATIONS;

/**
 * Every operation above, run in one call. ARGV[1]: the operations as JSON, [[name, keys, args], …] (one
 * argument for the whole batch: nothing per operation for the client to encode or Redis to parse but
 * the JSON). → the answers as JSON, one per operation; an operation that fails answers
 * ['failed', message] and the others run on (what it wrote before failing stays, as in a script of its own).
 */
export const BATCH = `${COMMON}
local operations = {}
${Object.entries(OPERATIONS)
  .map(([name, body]) => `operations.${name} = function(KEYS, ARGV)${body}end`)
  .join('\n')}
local answers = {}
for i, operation in ipairs(cjson.decode(ARGV[1])) do
  local ok, answer = pcall(operations[operation[1]], operation[2], operation[3])
  if ok then answers[i] = answer
  else answers[i] = { 'failed', type(answer) == 'table' and tostring(answer.err) or tostring(answer) } end
end
return cjson.encode(answers)
`;
