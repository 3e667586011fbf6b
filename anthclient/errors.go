package anthclient

import (
	"net/http"
	"strconv"
)

// StatusError is an HTTP response that is not a success: the status code
// and, when the body is the API's JSON error, its error type and message.
// Every other failure this package reports is an *anthhttp.Error, of one
// of anthhttp's kinds (ErrTruncated, ErrMalformed, ErrMediaType), the
// values its server side reports too.
type StatusError struct {
	StatusCode int
	Type       string // the API's error type, "" if the body was not its JSON error
	Message    string
}

// Error says "anthclient: HTTP", the status code and its text, then the
// API's error type and message where the body gave them.
func (e *StatusError) Error() string {
	s := "anthclient: HTTP " + strconv.Itoa(e.StatusCode)
	if t := http.StatusText(e.StatusCode); t != "" {
		s += " " + t
	}
	if e.Type != "" {
		s += ": " + e.Type
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}
