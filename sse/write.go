package sse

import "bytes"

// AppendEvent appends an event named name (none if empty) with data, which
// may hold line breaks: each line of data (ended by LF, CRLF or a lone CR,
// as Scanner reads them) is a data line of its own, so Scanner gives the
// data back with its line ends as LF, and no byte of data can start a
// field or an event of its own. The name must hold no line break.
func AppendEvent(b, name, data []byte) []byte {
	if len(name) > 0 {
		b = append(b, "event: "...)
		b = append(b, name...)
		b = append(b, '\n')
	}
	for {
		end := lineEnd(data)
		b = append(b, "data: "...)
		if end < 0 {
			b = append(b, data...)
			return append(b, '\n', '\n')
		}
		b = append(b, data[:end]...)
		b = append(b, '\n')
		if data[end] == '\r' && end+1 < len(data) && data[end+1] == '\n' {
			end++
		}
		data = data[end+1:]
	}
}

// lineEnd is bytes.IndexAny(b, "\r\n"), by two IndexByte scans: data is
// almost always one line, and IndexAny tests every byte against a set.
func lineEnd(b []byte) int {
	end := bytes.IndexByte(b, '\n')
	head := b
	if end >= 0 {
		head = b[:end]
	}
	if cr := bytes.IndexByte(head, '\r'); cr >= 0 {
		return cr
	}
	return end
}
