/**
 * CHAT_DICTIONARY is version 2 of the extended request's string
 * dictionary, the Chat Completions one (SPEC.md §5.5), generated from its
 * single copy, Go's chatDictionary: a string of it is sent as tag 06 and
 * its index. Entries are only ever added at the end, in a new version.
 */
export const CHAT_DICTIONARY: readonly string[];
