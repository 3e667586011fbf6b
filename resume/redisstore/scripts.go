package redisstore

import (
	"crypto/sha1"
	"encoding/hex"
)

// script is a Lua script the store runs with EVALSHA, and with EVAL when
// Redis answers NOSCRIPT (after a restart or a SCRIPT FLUSH).
type script struct{ src, sha string }

func newScript(src string) *script {
	h := sha1.Sum([]byte(src))
	return &script{src: src, sha: hex.EncodeToString(h[:])}
}

// The scripts' replies: a status code first, then what it needs.
const (
	statusOK       = 0
	statusNotFound = 1 // no hash (unknown, expired) or another owner
	statusGone     = 2 // dropped
	statusEnded    = 3
	statusTooLarge = 4 // {4, bytes kept, max}
	statusRange    = 5 // {5, bytes kept}
	statusExists   = 6
)

// createScript: KEYS info, stream; ARGV owner, API, max bytes, TTL in ms.
// The stream is deleted too, in case a key of an ID used before is left.
var createScript = newScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return {6} end
redis.call('DEL', KEYS[2])
redis.call('HSET', KEYS[1], 'o', ARGV[1], 'a', ARGV[2], 'm', ARGV[3], 't', ARGV[4], 'n', 0)
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return {0}
`)

// appendScript: KEYS info, stream; ARGV the bytes, "1" to end the tail.
// It answers 0, an integer, when the bytes are kept (an array would cost
// the client an allocation an Append), and an array otherwise.
// Offsets are formatted with %d: Lua's numbers are doubles, exact to 2^53,
// and tostring would write 1e+14.
var appendScript = newScript(`
local h = redis.call('HMGET', KEYS[1], 'n', 'm', 't', 'e', 'd')
if not h[1] then return {1} end
if h[5] then return {2} end
if h[4] then return {3} end
local n = tonumber(h[1])
local max = tonumber(h[2])
local len = string.len(ARGV[1])
if max > 0 and n + len > max then
	local marker = string.format('%d-2', n)
	redis.call('XADD', KEYS[2], marker, 'd', '1')
	redis.call('XTRIM', KEYS[2], 'MINID', marker)
	redis.call('HSET', KEYS[1], 'd', '1')
	redis.call('PEXPIRE', KEYS[1], h[3])
	redis.call('PEXPIRE', KEYS[2], h[3])
	return {4, n, max}
end
if len > 0 then
	local id = string.format('%d-1', n)
	if ARGV[2] == '1' then
		redis.call('XADD', KEYS[2], id, 'p', ARGV[1], 'e', '1')
		redis.call('HSET', KEYS[1], 'n', string.format('%d', n + len), 'e', '1')
	else
		redis.call('XADD', KEYS[2], id, 'p', ARGV[1])
		redis.call('HSET', KEYS[1], 'n', string.format('%d', n + len))
	end
elseif ARGV[2] == '1' then
	redis.call('XADD', KEYS[2], string.format('%d-2', n), 'e', '1')
	redis.call('HSET', KEYS[1], 'e', '1')
end
redis.call('PEXPIRE', KEYS[1], h[3])
redis.call('PEXPIRE', KEYS[2], h[3])
return 0
`)

// followScript: KEYS info, stream; ARGV owner, cursor. It returns
// {0, start, ended}: where the follower starts reading, the start of the
// Append holding the cursor or the cursor itself when it is at the end,
// and 1 when it is at the end of an ended tail (whose end mark is in an
// entry before the cursor). The owner is checked before the cursor, so
// another caller learns nothing of the tail (resume.ErrNotFound).
var followScript = newScript(`
local h = redis.call('HMGET', KEYS[1], 'o', 'n', 'd', 'e')
if not h[1] or h[1] ~= ARGV[1] then return {1} end
if h[3] then return {2} end
local n = tonumber(h[2])
local from = tonumber(ARGV[2])
if from < 0 or from > n then return {5, n} end
if from == n then
	if h[4] then return {0, from, 1} end
	return {0, from, 0}
end
local e = redis.call('XREVRANGE', KEYS[2], ARGV[2] .. '-1', '-', 'COUNT', 1)
if not e[1] then return {2} end -- the stream went without its hash: evicted
local id = e[1][1]
return {0, tonumber(string.sub(id, 1, string.find(id, '-', 1, true) - 1)), 0}
`)
