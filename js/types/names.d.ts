/**
 * stopReasonName returns the API's stop_reason for a DONE reason
 * ("end_turn", …), or '' for StopReason.UNSPECIFIED and reasons the API
 * does not name.
 * @param {number} reason
 * @returns {string}
 */
export function stopReasonName(reason: number): string;
/**
 * errorTypeName returns the API's error type for an ERROR code
 * ("overloaded_error", …), or "error(N)" for a code the API does not pair
 * with a type (SPEC.md §3.3).
 * @param {number} code
 * @returns {string}
 */
export function errorTypeName(code: number): string;
/**
 * The JSON of each delta a content_block_delta carries, by DELTA kind (0 is
 * text, which travels in TEXT frames): its "type" and the field that holds
 * its bytes.
 */
export const deltaTypes: readonly {
    type: string;
    field: string;
}[];
