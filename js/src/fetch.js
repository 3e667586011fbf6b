export const CONTENT_TYPE="application/x-anthropic-binary"; export const ACCEPT=""; export function anthFetch(){} export function anthMiddleware(){}
