package chat

// TODO(merge): AppendRequestANTH and AppendRequestJSON are to call
// request.AppendChatANTH and request.AppendChatJSON (issue 22, item 2),
// which another branch is writing. Until it lands they refuse every request
// with an ErrMalformed *Error saying so; this file goes at the merge.

// AppendRequestANTH will append the ANTH form of a Chat Completions request
// body; until request.AppendChatANTH lands it returns an *Error of kind
// ErrMalformed.
func (API) AppendRequestANTH(dst, body []byte) ([]byte, error) {
	return dst, &Error{Offset: 0, Err: ErrMalformed, Detail: "Chat Completions requests are not yet supported (TODO: request.AppendChatANTH)"}
}

// AppendRequestJSON will turn an ANTH request back into its JSON; until
// request.AppendChatJSON lands it returns an *Error of kind ErrMalformed.
func (API) AppendRequestJSON(dst, anth []byte) ([]byte, error) {
	return dst, &Error{Offset: 0, Err: ErrMalformed, Detail: "Chat Completions requests are not yet supported (TODO: request.AppendChatJSON)"}
}
