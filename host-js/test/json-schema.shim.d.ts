// The AI SDK's declarations import the `json-schema` module's types, which it
// leaves to @types/json-schema (not a dependency here): declared as any, so the
// adapters' check reads every other declaration of the SDKs in full.
declare module 'json-schema' {
  export type JSONSchema7 = any;
  export type JSONSchema7Definition = any;
  export type JSONSchema7TypeName = any;
}
