export * from "./load-config.ts";
export { type LogLevel, variables } from "./variables.ts";
