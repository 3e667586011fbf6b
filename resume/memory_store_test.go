package resume_test

import (
	"testing"
	"time"

	"github.com/layer0/anth/resume"
	"github.com/layer0/anth/resume/storetest"
)

func TestMemoryConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) resume.Store {
		m := resume.NewMemory(resume.MemoryOptions{SweepEvery: 50 * time.Millisecond})
		t.Cleanup(func() { m.Close() })
		return m
	})
}
