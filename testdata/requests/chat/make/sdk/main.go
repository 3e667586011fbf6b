// Command sdk writes the sdk_*.json Chat Completions request bodies of
// layer0's testdata/requests/chat: the SDK's own serialization (the params'
// MarshalJSON) of the params openai-go v3.98.0's tests and examples build.
// It is not part of the module (testdata is not built); run it from a
// scratch module that requires github.com/openai/openai-go/v3 v3.98.0:
// go run . DIR.
package main

import (
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"
)

func write(dir, name string, p openai.ChatCompletionNewParams, stream bool) {
	b, err := json.Marshal(p)
	if err != nil {
		panic(err)
	}
	if stream { // NewStreaming adds "stream": true at the body's end (option.WithJSONSet)
		b = append(b[:len(b)-1], `,"stream":true}`...)
	}
	if err := os.WriteFile(filepath.Join(dir, name), append(b, '\n'), 0o644); err != nil {
		panic(err)
	}
}

func main() {
	dir := os.Args[1]
	// chatcompletion_test.go: TestChatCompletionNewWithOptionalParams.
	write(dir, "sdk_new_with_optional_params.json", openai.ChatCompletionNewParams{
		Messages: []openai.ChatCompletionMessageParamUnion{{
			OfDeveloper: &openai.ChatCompletionDeveloperMessageParam{
				Content: openai.ChatCompletionDeveloperMessageParamContentUnion{OfString: openai.String("string")},
				Name:    openai.String("name"),
			},
		}},
		Model: shared.ChatModelGPT6Astra,
		Audio: openai.ChatCompletionAudioParam{
			Format: openai.ChatCompletionAudioParamFormatWAV,
			Voice:  openai.ChatCompletionAudioParamVoiceUnion{OfChatCompletionAudioVoiceString2: openai.String("alloy")},
		},
		FrequencyPenalty: openai.Float(-2),
		FunctionCall:     openai.ChatCompletionNewParamsFunctionCallUnion{OfFunctionCallMode: openai.String("none")},
		Functions: []openai.ChatCompletionNewParamsFunction{{
			Name: "name", Description: openai.String("description"),
			Parameters: shared.FunctionParameters{"foo": "bar"},
		}},
		LogitBias:           map[string]int64{"foo": 0},
		Logprobs:            openai.Bool(true),
		MaxCompletionTokens: openai.Int(0),
		MaxTokens:           openai.Int(0),
		Metadata:            shared.Metadata{"foo": "string"},
		Modalities:          []string{"text"},
		Moderation: openai.ChatCompletionNewParamsModeration{
			Model: "model",
			Policy: openai.ChatCompletionNewParamsModerationPolicy{
				Input:  openai.ChatCompletionNewParamsModerationPolicyInput{Mode: "score"},
				Output: openai.ChatCompletionNewParamsModerationPolicyOutput{Mode: "score"},
			},
		},
		N:                 openai.Int(1),
		ParallelToolCalls: openai.Bool(true),
		Prediction: openai.ChatCompletionPredictionContentParam{
			Content: openai.ChatCompletionPredictionContentContentUnionParam{OfString: openai.String("string")},
		},
		PresencePenalty:      openai.Float(-2),
		PromptCacheKey:       openai.String("prompt-cache-key-1234"),
		PromptCacheOptions:   openai.ChatCompletionNewParamsPromptCacheOptions{Mode: "implicit", Ttl: "30m"},
		PromptCacheRetention: openai.ChatCompletionNewParamsPromptCacheRetentionInMemory,
		ReasoningEffort:      shared.ReasoningEffortNone,
		ResponseFormat:       openai.ChatCompletionNewParamsResponseFormatUnion{OfText: &shared.ResponseFormatTextParam{}},
		SafetyIdentifier:     openai.String("safety-identifier-1234"),
		Seed:                 openai.Int(-9007199254740991),
		ServiceTier:          openai.ChatCompletionNewParamsServiceTierAuto,
		Stop:                 openai.ChatCompletionNewParamsStopUnion{OfString: openai.String("\n")},
		Store:                openai.Bool(true),
		StreamOptions: openai.ChatCompletionStreamOptionsParam{
			IncludeObfuscation: openai.Bool(true), IncludeUsage: openai.Bool(true),
		},
		Temperature: openai.Float(1),
		ToolChoice:  openai.ChatCompletionToolChoiceOptionUnionParam{OfAuto: openai.String("none")},
		Tools: []openai.ChatCompletionToolUnionParam{{
			OfFunction: &openai.ChatCompletionFunctionToolParam{
				Function: shared.FunctionDefinitionParam{
					Name: "name", Description: openai.String("description"),
					Parameters: shared.FunctionParameters{"foo": "bar"},
					Strict:     openai.Bool(true),
				},
			},
		}},
		TopLogprobs: openai.Int(0),
		TopP:        openai.Float(1),
		User:        openai.String("user-1234"),
		Verbosity:   openai.ChatCompletionNewParamsVerbosityLow,
		WebSearchOptions: openai.ChatCompletionNewParamsWebSearchOptions{
			SearchContextSize: "low",
			UserLocation: openai.ChatCompletionNewParamsWebSearchOptionsUserLocation{
				Approximate: openai.ChatCompletionNewParamsWebSearchOptionsUserLocationApproximate{
					City: openai.String("city"), Country: openai.String("country"),
					Region: openai.String("region"), Timezone: openai.String("timezone"),
				},
			},
		},
	}, false)

	// client_test.go, usage_test.go, retry_delay_test.go.
	write(dir, "sdk_say_this_is_a_test.json", openai.ChatCompletionNewParams{
		Messages: []openai.ChatCompletionMessageParamUnion{{
			OfUser: &openai.ChatCompletionUserMessageParam{
				Content: openai.ChatCompletionUserMessageParamContentUnion{OfString: openai.String("Say this is a test")},
			},
		}},
		Model: shared.ChatModel("gpt-4o"),
	}, false)

	// streamaccumulator_test.go: TestStreamingAccumulatorWithToolCalls (as NewStreaming sends it).
	write(dir, "sdk_stream_accumulator_tools.json", openai.ChatCompletionNewParams{
		Messages: []openai.ChatCompletionMessageParamUnion{
			{OfSystem: &openai.ChatCompletionSystemMessageParam{
				Content: openai.ChatCompletionSystemMessageParamContentUnion{
					OfString: openai.String("Tell me a story about a place in Greece, then tell me the weather there."),
				},
				Name: openai.String("initialization"),
			}},
		},
		Model:         openai.ChatModelGPT4o,
		Logprobs:      openai.Bool(true),
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
		Tools: []openai.ChatCompletionToolUnionParam{{
			OfFunction: &openai.ChatCompletionFunctionToolParam{
				Function: shared.FunctionDefinitionParam{
					Name: "get_weather", Description: openai.String("gets weather data"),
					Parameters: openai.FunctionParameters{
						"type":                 "object",
						"properties":           map[string]interface{}{"location": map[string]string{"type": "string"}},
						"required":             []string{"location"},
						"additionalProperties": false,
					},
					Strict: openai.Bool(true),
				},
			},
		}},
		User: openai.String("user-1234"),
	}, true)

	// streamaccumulator_test.go: TestStreamingAccumulatorWithUsage.
	write(dir, "sdk_stream_accumulator_usage.json", openai.ChatCompletionNewParams{
		Messages: []openai.ChatCompletionMessageParamUnion{
			{OfUser: &openai.ChatCompletionUserMessageParam{
				Content: openai.ChatCompletionUserMessageParamContentUnion{OfString: openai.String("Tell me about Greece")},
			}},
		},
		Model:         openai.ChatModelGPT4o,
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
	}, true)

	// examples/chat-completion-tool-calling: the first request, then the
	// second with the assistant's tool call and the tool's answer.
	weather := []openai.ChatCompletionToolUnionParam{
		openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
			Name: "get_weather", Description: openai.String("Get weather at the given location"),
			Parameters: openai.FunctionParameters{
				"type":       "object",
				"properties": map[string]interface{}{"location": map[string]string{"type": "string"}},
				"required":   []string{"location"},
			},
		}),
	}
	params := openai.ChatCompletionNewParams{
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("What is the weather in New York City?")},
		Tools:    weather,
		Seed:     openai.Int(0),
		Model:    openai.ChatModelGPT4o,
	}
	write(dir, "sdk_example_tool_calling.0.json", params, false)
	var completion openai.ChatCompletion
	// The response as the API returns it (written by layer0 in the API reference's shape).
	if err := json.Unmarshal([]byte(`{"id":"chatcmpl-abc123","object":"chat.completion","created":1741569952,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_DdmO9pD3xa9XTPNJ32zg2hcA","type":"function","function":{"name":"get_weather","arguments":"{\"location\":\"New York City\"}"}}],"refusal":null,"annotations":[]},"logprobs":null,"finish_reason":"tool_calls"}]}`), &completion); err != nil {
		panic(err)
	}
	params.Messages = append(params.Messages, completion.Choices[0].Message.ToParam())
	params.Messages = append(params.Messages, openai.ToolMessage("Sunny, 25°C", completion.Choices[0].Message.ToolCalls[0].ID))
	write(dir, "sdk_example_tool_calling.1.json", params, false)

	// examples/structured-outputs, as a Chat Completions request (the
	// example uses the Responses API): the schema invopop/jsonschema makes
	// of its HistoricalComputer struct.
	var schema map[string]any
	if err := json.Unmarshal([]byte(`{"$schema":"https://json-schema.org/draft/2020-12/schema","properties":{"origin":{"properties":{"year_of_construction":{"type":"integer","description":"The year it was made"},"organization":{"type":"string","description":"The organization that was in charge of its development"}},"additionalProperties":false,"type":"object","required":["year_of_construction","organization"],"description":"The origin of the computer"},"full_name":{"type":"string","description":"The name of the device model"},"legacy":{"type":"string","enum":["positive","neutral","negative"],"description":"Its influence on the field of computing"},"notable_facts":{"items":{"type":"string"},"type":"array","description":"A few key facts about the computer"}},"additionalProperties":false,"type":"object","required":["origin","full_name","legacy","notable_facts"]}`), &schema); err != nil {
		panic(err)
	}
	write(dir, "sdk_example_structured_outputs.json", openai.ChatCompletionNewParams{
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("What computer ran the first neural network?")},
		ResponseFormat: openai.ChatCompletionNewParamsResponseFormatUnion{
			OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{
				JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{
					Name: "historical_computer", Description: openai.String("Notable information about a computer"),
					Schema: schema, Strict: openai.Bool(true),
				},
			},
		},
		Model: openai.ChatModelGPT4o2024_08_06,
	}, false)
}
