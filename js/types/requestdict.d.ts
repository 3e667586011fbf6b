/**
 * REQUEST_DICTIONARY is version 1 of the extended request's string
 * dictionary (SPEC.md §5.4), generated from its single copy, Go's
 * requestDictionary: a string of it is sent as tag 06 and its index.
 * Entries are only ever added at the end, in a new version.
 */
export const REQUEST_DICTIONARY: readonly string[];
