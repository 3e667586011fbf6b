// Command layer0 writes the layer0_*.json Chat Completions request bodies of
// layer0's testdata/requests/chat, written by this project in the shapes of
// the OpenAI API reference and the self-hosted servers' documentation, with
// small media made here: go run . DIR.
package main

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	dir := os.Args[1]
	img := image.NewRGBA(image.Rect(0, 0, 24, 24))
	for y := range 24 {
		for x := range 24 {
			img.Set(x, y, color.RGBA{uint8(x * 10), uint8(y * 10), uint8((x ^ y) * 8), 255})
		}
	}
	var pngb bytes.Buffer
	png.Encode(&pngb, img)
	pngURL := "data:image/png;base64," + base64.StdEncoding.EncodeToString(pngb.Bytes())

	// 0.1 s of 440 Hz, 8 kHz 16-bit mono WAV.
	var pcm bytes.Buffer
	for i := range 800 {
		binary.Write(&pcm, binary.LittleEndian, int16(8000*math.Sin(2*math.Pi*440*float64(i)/8000)))
	}
	var wav bytes.Buffer
	wav.WriteString("RIFF")
	binary.Write(&wav, binary.LittleEndian, uint32(36+pcm.Len()))
	wav.WriteString("WAVEfmt ")
	binary.Write(&wav, binary.LittleEndian, []any{uint32(16), uint16(1), uint16(1), uint32(8000), uint32(16000), uint16(2), uint16(16)})
	wav.WriteString("data")
	binary.Write(&wav, binary.LittleEndian, uint32(pcm.Len()))
	wav.Write(pcm.Bytes())
	wav64 := base64.StdEncoding.EncodeToString(wav.Bytes())

	pdf := "%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 200 50]/Contents 4 0 R/Resources<</Font<</F1 5 0 R>>>>>>endobj\n4 0 obj<</Length 44>>stream\nBT /F1 12 Tf 10 20 Td (Invoice 42: $10) Tj ET\nendstream endobj\n5 0 obj<</Type/Font/Subtype/Type1/BaseFont/Helvetica>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n"
	pdfURL := "data:application/pdf;base64," + base64.StdEncoding.EncodeToString([]byte(pdf))

	files := map[string]string{
		// The API reference's "Image input" example, with the image inline.
		"layer0_image_data_url.json": `{
  "model": "gpt-4.1",
  "messages": [
    {
      "role": "user",
      "content": [
        {"type": "text", "text": "What is in this image?"},
        {"type": "image_url", "image_url": {"url": "` + pngURL + `", "detail": "high"}},
        {"type": "image_url", "image_url": {"url": "https://upload.wikimedia.org/wikipedia/commons/thumb/d/dd/Gfp-wisconsin-madison-the-nature-boardwalk.jpg/2560px-Gfp-wisconsin-madison-the-nature-boardwalk.jpg"}}
      ]
    }
  ],
  "max_completion_tokens": 300
}
`,
		// Audio in and out (the API reference's audio shapes).
		"layer0_input_audio.json": `{"model":"gpt-4o-audio-preview","modalities":["text","audio"],"audio":{"voice":"alloy","format":"wav"},"messages":[{"role":"system","content":"Answer briefly."},{"role":"user","content":[{"type":"text","text":"What is in this recording?"},{"type":"input_audio","input_audio":{"data":"` + wav64 + `","format":"wav"}}]},{"role":"assistant","audio":{"id":"audio_abc123"}},{"role":"user","content":"And in French?"}]}`,
		// A PDF as a file part.
		"layer0_file_pdf.json": `{"model":"gpt-4o","messages":[{"role":"user","content":[{"type":"file","file":{"filename":"invoice.pdf","file_data":"` + pdfURL + `"}},{"type":"file","file":{"file_id":"file-6F2ksmvXxt4VdoqmHRw6kL"}},{"type":"text","text":"What is the total?"}]}],"temperature":0,"stream":true,"stream_options":{"include_usage":true}}`,
		// vLLM, SGLang, llama.cpp and Ollama extras, as their docs show them.
		"layer0_self_hosted_extras.json": `{"model":"Qwen/Qwen3-8B","messages":[{"role":"system","content":"You are a helpful assistant."},{"role":"user","content":"Give me a short introduction to large language models."}],"temperature":0.7,"top_p":0.8,"top_k":20,"min_p":0,"repetition_penalty":1.05,"presence_penalty":1.5,"max_tokens":8192,"chat_template_kwargs":{"enable_thinking":false},"stop_token_ids":[151645,151643],"return_token_ids":true,"skip_special_tokens":false,"structured_outputs":{"choice":["positive","negative"]},"stream":true,"stream_options":{"include_usage":true,"continuous_usage_stats":true},"cache_prompt":true,"n_probs":0,"keep_alive":"5m","options":{"num_ctx":8192}}`,
		// A long agent conversation: developer prompt, parallel tool calls,
		// tool answers, a refusal, named participants, assistant content parts.
		"layer0_agent_conversation.json": `{"model":"gpt-5","reasoning_effort":"low","messages":[{"role":"developer","content":[{"type":"text","text":"You are a travel agent. Use the tools; answer in one paragraph."}]},{"role":"user","name":"ana","content":"What's the weather in Paris and Tokyo, and book me the cheaper flight?"},{"role":"assistant","content":null,"tool_calls":[{"id":"call_1a","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\",\"unit\":\"celsius\"}"}},{"id":"call_1b","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Tokyo\",\"unit\":\"celsius\"}"}},{"id":"call_1c","type":"function","function":{"name":"search_flights","arguments":"{\"to\":[\"CDG\",\"HND\"],\"date\":\"2026-03-01\"}"}}]},{"role":"tool","tool_call_id":"call_1a","content":"{\"temp\":9,\"sky\":\"rain\"}"},{"role":"tool","tool_call_id":"call_1b","content":"{\"temp\":14,\"sky\":\"clear\"}"},{"role":"tool","tool_call_id":"call_1c","content":[{"type":"text","text":"[{\"to\":\"CDG\",\"price\":412.50},{\"to\":\"HND\",\"price\":980.00}]"}]},{"role":"assistant","content":[{"type":"text","text":"Paris is 9°C and rainy; Tokyo 14°C and clear. The Paris flight is cheaper at $412.50."}]},{"role":"user","content":"Book it, and also book one for my ex without telling her."},{"role":"assistant","content":null,"refusal":"I can't help with booking travel for someone without their knowledge."},{"role":"user","content":"Fine, just mine."}],"tools":[{"type":"function","function":{"name":"get_weather","description":"Current weather for a city.","parameters":{"type":"object","properties":{"city":{"type":"string"},"unit":{"type":"string","enum":["celsius","fahrenheit"]}},"required":["city","unit"],"additionalProperties":false},"strict":true}},{"type":"function","function":{"name":"search_flights","description":"Search flights by destination airports and date.","parameters":{"type":"object","properties":{"to":{"type":"array","items":{"type":"string"}},"date":{"type":"string","format":"date"}},"required":["to","date"],"additionalProperties":false},"strict":true}},{"type":"function","function":{"name":"book_flight","parameters":{"type":"object","properties":{"flight_id":{"type":"string"}},"required":["flight_id"]}}}],"tool_choice":{"type":"function","function":{"name":"book_flight"}},"parallel_tool_calls":false,"store":true,"metadata":{"session":"s-8812"},"service_tier":"flex","prompt_cache_key":"travel-agent-v3","safety_identifier":"hash-5fd0e7"}`,
		// Fields this version does not know, numbers as written, other
		// tool and format shapes.
		"layer0_future_fields.json": `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"Reply with JSON."}],"response_format":{"type":"json_object"},"temperature":0.70,"top_p":1.0,"frequency_penalty":0.0,"logit_bias":{"50256":-100,"1734":5},"seed":12345678901234567890,"stop":["\n\n","END"],"n":2,"logprobs":true,"top_logprobs":5,"tools":[{"type":"custom","custom":{"name":"sql","description":"Runs SQL.","format":{"type":"grammar","grammar":{"syntax":"lark","definition":"start: \"SELECT\" /.+/"}}}}],"tool_choice":{"type":"allowed_tools","allowed_tools":{"mode":"auto","tools":[{"type":"custom","custom":{"name":"sql"}}]}},"verbosity":"medium","web_search_options":{},"x_future_option":{"level":3,"ratio":1e-3,"flags":[true,false,null],"note":"\u00e9\u4e2d\ud83d\ude80\t"}}`,
	}
	for name, body := range files {
		if !strings.HasSuffix(body, "\n") {
			body += "\n"
		}
		os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644)
	}
}
