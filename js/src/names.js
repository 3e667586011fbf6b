// The Anthropic Messages API's names for what frames carry as numbers, as
// Go's messages/names.go spells them (SPEC.md §7a).

const stopReasonNames = ['', 'end_turn', 'max_tokens', 'stop_sequence', 'tool_use', 'pause_turn', 'refusal', 'model_context_window_exceeded'];

/**
 * stopReasonName returns the API's stop_reason for a DONE reason
 * ("end_turn", …), or '' for StopReason.UNSPECIFIED and reasons the API
 * does not name.
 * @param {number} reason
 * @returns {string}
 */
export function stopReasonName(reason) {
  return stopReasonNames[reason] ?? '';
}

/** @type {Record<number, string>} */
const errorTypes = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

/**
 * errorTypeName returns the API's error type for an ERROR code
 * ("overloaded_error", …), or "error(N)" for a code the API does not pair
 * with a type (SPEC.md §3.3).
 * @param {number} code
 * @returns {string}
 */
export function errorTypeName(code) {
  return errorTypes[code] ?? `error(${code})`;
}

/**
 * The JSON of each delta a content_block_delta carries, by DELTA kind (0 is
 * text, which travels in TEXT frames): its "type" and the field that holds
 * its bytes.
 */
export const deltaTypes = Object.freeze([
  { type: 'text_delta', field: 'text' },
  { type: 'input_json_delta', field: 'partial_json' },
  { type: 'thinking_delta', field: 'thinking' },
  { type: 'signature_delta', field: 'signature' },
  { type: 'citations_delta', field: 'citation' },
]);
