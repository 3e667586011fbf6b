package request

import "strconv"

// AppendChatANTH appends the ANTH form of an OpenAI Chat Completions
// request body, json, to dst, under the default Limits. See
// Limits.AppendChatANTH.
func AppendChatANTH(dst, json []byte) ([]byte, error) {
	return Limits{}.AppendChatANTH(dst, json)
}

// AppendChatANTH appends the ANTH form of json, a Chat Completions request
// body (POST /v1/chat/completions): the extended request of SPEC.md §5.4
// with version 2, the Chat Completions dictionary, of §5.5. It carries any
// JSON object, fields this version does not know included; converted back
// by AppendChatJSON, the request is the same JSON value with its keys in
// their order and its numbers as written. Images and files sent inline as
// data URLs ("data:image/png;base64,…") and input_audio data travel as the
// bytes their base64 stands for. There is no seed form for this API. Bad
// JSON is an *Error wrapping ErrMalformed with its offset in json; json
// over the limits, ErrTooLarge. On error dst is unchanged.
func (l Limits) AppendChatANTH(dst, json []byte) ([]byte, error) {
	return l.appendExtended(dst, json, chatDict)
}

// AppendChatJSON appends the JSON of a Chat Completions request in ANTH
// form to dst, under the default Limits. See Limits.AppendChatJSON.
func AppendChatJSON(dst, anth []byte) ([]byte, error) {
	return Limits{}.AppendChatJSON(dst, anth)
}

// AppendChatJSON appends the JSON of anth, a Chat Completions request in
// the extended form of SPEC.md §5.5 (magic "ANTX", version 2): compact,
// its keys in the order they were sent. It checks the whole of the
// canonical form: bad or non-canonical input is an *Error with its offset
// in anth, wrapping ErrMalformed, ErrTruncated or ErrTooLarge. Bytes that
// do not start with "ANTX" are ErrBadMagic (a Messages seed request,
// "ANTH", at offset 3); a Messages extended request (version 1) is
// ErrMalformed at offset 4, its version byte, and is never read with the
// wrong dictionary. On error dst is unchanged.
func (l Limits) AppendChatJSON(dst, anth []byte) ([]byte, error) {
	if len(anth) > l.size() {
		return dst, &Error{Offset: int64(l.size()), Err: ErrTooLarge, Detail: "request of " + strconv.Itoa(len(anth)) + " bytes, limit " + strconv.Itoa(l.size())}
	}
	for i := range len(requestMagic) {
		if i == len(anth) {
			return dst, &Error{Offset: int64(i), Err: ErrTruncated, Detail: "the request ends inside its magic"}
		}
		if anth[i] != requestMagic[i] {
			detail := "a Chat Completions request must start with \"ANTX\" (41 4E 54 58), then version 2"
			if string(anth[:i]) == "ANT" && anth[i] == 'H' {
				detail += "; \"ANTH\" is a Messages request in the seed form, which AppendJSON reads"
			}
			return dst, &Error{Offset: int64(i), Err: ErrBadMagic, Detail: detail}
		}
	}
	return l.appendExtendedJSON(dst, anth, chatDict)
}
