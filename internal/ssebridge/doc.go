// Package ssebridge is the part of the API bridges (packages messages and
// chat) that knows no API: the loop that reads an event stream and gives
// the ANTH frames of each event (Decoder), and the loop that takes ANTH
// bytes in any pieces and writes the events of each whole frame (Encoder).
// A bridge brings the conversion of one event (ToFrames) or one frame
// (ToSSE), and its own error type (a Fault function), so that a second API
// is a sibling of the first and the loops are written once.
package ssebridge
