/** Broker configuration: YAML + environment, validated once at startup. */
export { loadBrokerConfig, parseBrokerConfig } from './load.ts';
export { brokerConfigSchema } from './broker-config.ts';
export type { BrokerConfig, BrokerWorldConfig } from './broker-config.ts';
export type { WorldConfig, WorldAllowConfig } from './world-schema.ts';
export { ConfigError } from './errors.ts';
export type { ConfigErrorCode } from './errors.ts';
export { envOverrides } from './env.ts';
export type { Env } from './env.ts';
export { parseGoDuration, formatGoDuration, DurationError } from './duration.ts';
export { parseListenAddress, parseHostPort, listenersCollide, AddressError } from './host-port.ts';
export type { HostPort } from './host-port.ts';
export { isValidWorldName } from './world-name.ts';
export { writeTokenFileName, refreshTokensFileName } from './rules.ts';
