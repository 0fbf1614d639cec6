import {
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
  ResourceTemplate,
  UriTemplate,
  type McpServer,
  type ServerContext,
  type StandardSchemaWithJSON,
  type ToolAnnotations,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import { type KeyedLimit, QueueFullError } from '../../concurrency/keyed-limit.ts';
import type { Identity } from '../identity.ts';
import type {
  ConcreteResourceDefinition,
  PromptDefinition,
  ResourceTemplateDefinition,
  ToolContext,
  ToolDefinition,
} from '../mcp/definitions.ts';
import { callTool, inputSchemaOf, outputSchemaOf, type ToolCallOptions } from '../mcp/run-tool.ts';
import { WorldGatewayError } from '../worlds/gateway.ts';
import { ResourceMissingError, ResourceReadError } from '../mcp/resources.ts';
import { PromptArgumentError } from '../mcp/prompts.ts';
import { identityFromAuthInfo } from './auth-info.ts';
import type { ToolOutcome } from '../mcp/run-tool.ts';

/** Everything the MCP server offers, in SDK-neutral form (src/broker/mcp). */
export type McpDefinitions = {
  // Each tool has its own argument shape, widened by defineTool; the registry only needs the common surface.
  tools: readonly ToolDefinition[];
  resourceTemplates: readonly ResourceTemplateDefinition[];
  /** Concrete resources (one `index.md` per world); a function because worlds come and go. */
  resources: () => readonly ConcreteResourceDefinition[];
  prompts: readonly PromptDefinition[];
};

/** Builds the tools' context for one call from the verified caller and the call's abort signal. */
export type CallContextFactory = (call: { identity: Identity; signal: AbortSignal }) => ToolContext;

export type RegisterOptions = ToolCallOptions & {
  recordToolCall?: (tool: string, seconds: number, outcome: ToolOutcome) => void;
  /**
   * Tool calls, resources/read and prompts/get one subject may run at once,
   * over all its sessions and requests (one per process); past it a subject's
   * calls wait behind its own.
   */
  callsPerSubject?: KeyedLimit;
};

/**
 * Registers the definitions with one SDK server instance; with `onlyTool`
 * naming one of the tools, that tool alone (true is returned then), for a
 * server that lives for one `tools/call` (see `toolCalledBy`). Every tool call goes
 * through `callTool` (src/broker/mcp/run-tool.ts), which validates arguments
 * against the zod shape and answers invalid ones, and a tool's genuine
 * failure, with `isError: true`, never a thrown error; an unknown tool is the
 * SDK's protocol error.
 */
export function registerDefinitions(
  server: McpServer,
  definitions: McpDefinitions,
  contextFactory: CallContextFactory,
  options: RegisterOptions = {},
  onlyTool?: string,
): boolean {
  if (definitions.resourceTemplates.length === 0 && definitions.resources().length > 0) {
    throw new TypeError('registerDefinitions: concrete resources need a resource template to be read through');
  }
  const contextOf = (ctx: ServerContext) =>
    contextFactory({ identity: identityFromAuthInfo(ctx.http?.authInfo), signal: ctx.mcpReq.signal });
  const only = onlyTool === undefined ? undefined : definitions.tools.find((tool) => tool.name === onlyTool);
  if (only !== undefined) {
    noListChanges(server, 'tools');
    registerTool(server, only, contextOf, options);
    return true;
  }
  if (definitions.tools.length > 0) noListChanges(server, 'tools');
  for (const tool of definitions.tools) registerTool(server, tool, contextOf, options);
  if (definitions.resourceTemplates.length > 0) noListChanges(server, 'resources');
  for (const template of definitions.resourceTemplates) registerTemplate(server, template, contextOf, options);
  // The concrete resources are listed here and read through the first template.
  if (definitions.resourceTemplates.length > 0) listResources(server, definitions.resources);
  if (definitions.prompts.length > 0) noListChanges(server, 'prompts');
  for (const prompt of definitions.prompts) registerPrompt(server, prompt, contextOf, options);
  refuseCursorsOnSdkLists(server);
  return false;
}

/**
 * Advertises `listChanged: false`, where the SDK would advertise true on the
 * first registration (it keeps a value set before): the broker never sends
 * `notifications/{tools,prompts,resources}/list_changed`. Tools and prompts
 * are fixed for the process; the resource list follows the world set, and a
 * client lists it again when it wants it fresh (docs/decisions.md, "listChanged is false").
 */
function noListChanges(server: McpServer, kind: 'tools' | 'resources' | 'prompts'): void {
  server.server.registerCapabilities({ [kind]: { listChanged: false } });
}

type ContextOf = (ctx: ServerContext) => ToolContext;

/**
 * Runs one request of the caller's (a tool call, a resources/read, a
 * prompts/get) within the per-subject bound on calls in flight
 * (`options.callsPerSubject`, src/concurrency/keyed-limit.ts), so a batch of
 * any of them queues behind the caller's own calls. When the caller already
 * has as many waiting as the bound allows, the answer is the refusal's text,
 * `<what> refused: <the caller's own numbers>; retry once some have answered`,
 * for the caller to put in its own kind of answer.
 */
async function withinCallsPerSubject<T>(
  options: RegisterOptions,
  context: ToolContext,
  what: string,
  work: () => Promise<T>,
): Promise<T | string> {
  if (options.callsPerSubject === undefined) return work();
  try {
    return await options.callsPerSubject.run(context.identity.subject, work, context.signal);
  } catch (error) {
    if (error instanceof QueueFullError) return `${what} refused: ${error.message}`;
    throw error;
  }
}

/**
 * The JSON-RPC error for a resources/read or prompts/get refused by the
 * per-subject bound: neither has a tool's `isError` answer, so the refusal is
 * an error response, with a code from the range JSON-RPC 2.0 §5.1 leaves to
 * the server ("-32000 to -32099: Server error, reserved for
 * implementation-defined server-errors"), none of the predefined ones meaning
 * "too many of your requests at once".
 */
const callsQueueFullCode = -32000;

function refusedRequest(refusal: string): ProtocolError {
  return new ProtocolError(callsQueueFullCode, refusal);
}

function registerTool(server: McpServer, tool: ToolDefinition, contextOf: ContextOf, options: RegisterOptions): void {
  const output = outputSchemaOf(tool);
  const config = {
    title: tool.title,
    description: tool.description,
    inputSchema: advertisedOnly(inputSchemaOf(tool)),
    ...(output === undefined ? {} : { outputSchema: advertisedOnly(output, { answers: true }) }),
    annotations: annotationsOf(tool),
  };
  server.registerTool(tool.name, config, async (args: unknown, ctx: ServerContext) => {
    const started = performance.now();
    const context = contextOf(ctx);
    const answer = await withinCallsPerSubject(options, context, tool.name, () =>
      callTool(tool, args, context, options),
    );
    if (typeof answer === 'string') {
      options.recordToolCall?.(tool.name, (performance.now() - started) / 1000, 'tool_error');
      return { content: [{ type: 'text' as const, text: answer }], isError: true };
    }
    const { result, outcome } = answer;
    options.recordToolCall?.(tool.name, (performance.now() - started) / 1000, outcome);
    const content = [{ type: 'text' as const, text: result.text }];
    // The text stays the reference broker's, byte for byte; the structure rides beside it (MCP 2025-06-18).
    if (result.isError === true || result.structured === undefined)
      return { content, isError: result.isError === true };
    return { content, structuredContent: result.structured, isError: false };
  });
}

/**
 * The tool's effects as MCP ToolAnnotations (spec 2025-06-18). Every hint is stated, since a missing one
 * reads as its default; for a read-only tool destructive and idempotent are what reading is (the spec reads
 * them only beside readOnlyHint false, but a client that reads them anyway must not see a reader as destructive).
 */
function annotationsOf(tool: ToolDefinition): ToolAnnotations {
  if (tool.readOnly)
    return { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: tool.openWorld };
  return {
    readOnlyHint: false,
    destructiveHint: tool.destructive,
    idempotentHint: tool.idempotent,
    openWorldHint: tool.openWorld,
  };
}

/**
 * The tool's schemas as the SDK lists them in tools/list, with validation left to
 * `callTool` (arguments in, structured answers out), so a call over HTTP and a call in a test meet the same checks and
 * the same messages (the SDK would otherwise answer first, in its own words).
 */
function advertisedOnly(schema: z.ZodObject, { answers = false } = {}): StandardSchemaWithJSON {
  const cache = answers ? advertisedAnswers : advertisedArguments;
  const known = cache.get(schema);
  if (known !== undefined) return known;
  const convert = schema['~standard'].jsonSchema;
  const converted = new Map<string, Record<string, unknown>>();
  const once =
    (io: 'input' | 'output') =>
    (options: Parameters<typeof convert.input>[0]): Record<string, unknown> => {
      const key = `${io} ${options.target}`;
      let json = converted.get(key);
      if (json === undefined) {
        // `$schema` names the dialect MCP already fixes (2020-12 unless stated, "Tools"); once per
        // schema it was 2.3 KB of every tools/list (docs/benchmarks.md, "tools/list size").
        const { $schema: _dialect, ...rest } = convert[io](options);
        json = answers ? withoutSafeIntegerBounds(rest) : rest;
        converted.set(key, json);
      }
      return json;
    };
  const wrapped: StandardSchemaWithJSON = {
    '~standard': {
      version: 1,
      vendor: 'demarkus',
      validate: (value: unknown) => ({ value }),
      jsonSchema: { input: once('input'), output: once('output') },
    },
  };
  cache.set(schema, wrapped);
  return wrapped;
}

/**
 * A schema's JSON form, converted once per process: the SDK converts it on every
 * tools/list and on the first call of each server, and the broker builds a server
 * per session, per stateless request and per 2026-07-28 exchange; zod's
 * conversion of our larger schemas costs milliseconds (bench/load.ts profile).
 * The SDK only reads the converted objects. One cache per use, since an answer's
 * form differs (`withoutSafeIntegerBounds`): keyed by schema alone, a schema
 * advertised both ways would get whichever form was asked for first. (Today
 * none is: src/broker/mcp/run-tool.ts builds each tool's schemas apart.)
 */
const advertisedArguments = new WeakMap<z.ZodObject, StandardSchemaWithJSON>();
const advertisedAnswers = new WeakMap<z.ZodObject, StandardSchemaWithJSON>();

/**
 * An outputSchema without the ±2^53-1 bounds zod puts on every `int()`: an answer's integers are
 * ours, so the bounds tell a client nothing, and at 166 of them they were ~6.6 KB of every
 * tools/list (docs/benchmarks.md, "tools/list size"). Argument schemas keep theirs (a client may
 * check arguments against them). Dropping a bound only loosens the schema: every answer still fits.
 */
function withoutSafeIntegerBounds(node: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'minimum' && value === Number.MIN_SAFE_INTEGER) continue;
    if (key === 'maximum' && value === Number.MAX_SAFE_INTEGER) continue;
    out[key] = Array.isArray(value)
      ? value.map((item) => (isJsonObject(item) ? withoutSafeIntegerBounds(item) : item))
      : isJsonObject(value)
        ? withoutSafeIntegerBounds(value)
        : value;
  }
  return out;
}

function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function registerTemplate(
  server: McpServer,
  template: ResourceTemplateDefinition,
  contextOf: ContextOf,
  options: RegisterOptions,
): void {
  const sdkTemplate = new ResourceTemplate(parsedUriTemplate(template), { list: undefined });
  const metadata = { description: template.description, mimeType: template.mimeType };
  server.registerResource(
    template.name,
    sdkTemplate,
    metadata,
    async (uri: URL, _variables: unknown, ctx: ServerContext) => {
      let content: Awaited<ReturnType<ResourceTemplateDefinition['read']>> | string;
      try {
        const context = contextOf(ctx);
        content = await withinCallsPerSubject(options, context, 'resources/read', () =>
          template.read(uri.href, context),
        );
      } catch (error) {
        throw resourceError(uri.href, error, options);
      }
      if (typeof content === 'string') throw refusedRequest(content);
      return { contents: [content] };
    },
  );
}

/**
 * resources/list, in place of the SDK's (installed by the first registerResource): every resource in
 * one page, so no cursor is ever handed out, and a request that carries one is refused, as MCP
 * pagination says an invalid cursor SHOULD be (-32602 Invalid params). The SDK's handler ignored the
 * cursor and answered the first page again, as if it were the next; its list callback never sees the
 * request.
 */
function listResources(server: McpServer, list: McpDefinitions['resources']): void {
  server.server.setRequestHandler('resources/list', async (request) => {
    refuseCursor(request.params, 'resource');
    return {
      resources: list().map((r) => ({ uri: r.uri, name: r.name, description: r.description, mimeType: r.mimeType })),
    };
  });
}

/**
 * The refusal of a cursor on a list this broker answers in one page: it never
 * hands one out, so any cursor is invalid (MCP pagination: -32602 Invalid
 * params). The one check for resources/list and the SDK's own lists.
 */
function refuseCursor(params: { cursor?: unknown } | undefined, what: string): void {
  if (params?.cursor !== undefined)
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `invalid cursor: this broker lists every ${what} in one page and hands out no cursor; list again without one`,
    );
}

/** The SDK's own paged lists, answered whole, and what each lists. */
const sdkLists = { 'tools/list': 'tool', 'prompts/list': 'prompt', 'resources/templates/list': 'resource template' };

type StoredHandler = (request: unknown, ctx: ServerContext) => Promise<Record<string, unknown>>;

/**
 * tools/list, prompts/list and resources/templates/list refuse a cursor as
 * resources/list does: the SDK's handlers ignore it and answer the first (the
 * only) page again, as if it were the next. The SDK's handler is kept and
 * called behind the check; the SDK exposes it only to its subclasses
 * (`Protocol._getRequestHandler`), and `test/broker/http/register-definitions.test.ts`
 * fails if that accessor goes away.
 */
function refuseCursorsOnSdkLists(server: McpServer): void {
  const low = server.server as unknown as { _getRequestHandler(method: string): StoredHandler | undefined };
  for (const [method, what] of Object.entries(sdkLists) as Array<[keyof typeof sdkLists, string]>) {
    const listed = low._getRequestHandler(method);
    if (listed === undefined) continue;
    server.server.setRequestHandler(method, async (request, ctx) => {
      refuseCursor(request.params, what);
      return (await listed(request, ctx)) as never;
    });
  }
}

/**
 * A URI template parsed once per process (the SDK parses a string template again for every server),
 * matching also the URIs the definition's `read` takes beyond its pattern: the SDK routes
 * resources/read by `match` alone and answers "Resource not found" to anything it does not match.
 */
function parsedUriTemplate(template: ResourceTemplateDefinition): UriTemplate {
  let parsed = uriTemplates.get(template);
  if (parsed === undefined) {
    parsed =
      template.alsoReads === undefined
        ? new UriTemplate(template.uriTemplate)
        : new WideUriTemplate(template.uriTemplate, template.alsoReads);
    uriTemplates.set(template, parsed);
  }
  return parsed;
}

class WideUriTemplate extends UriTemplate {
  readonly #alsoReads: (uri: string) => boolean;

  constructor(uriTemplate: string, alsoReads: (uri: string) => boolean) {
    super(uriTemplate);
    this.#alsoReads = alsoReads;
  }

  override match(uri: string): ReturnType<UriTemplate['match']> {
    // `read` parses the URI itself, so the variables of a URI outside the pattern are not needed.
    return super.match(uri) ?? (this.#alsoReads(uri) ? {} : null);
  }
}

const uriTemplates = new WeakMap<ResourceTemplateDefinition, UriTemplate>();

function resourceError(uri: string, error: unknown, options: RegisterOptions): ProtocolError {
  if (error instanceof ProtocolError) return error;
  if (error instanceof ResourceMissingError) return new ResourceNotFoundError(uri, error.message);
  // The document's own answer (a missing section, a world status): its message is meant for the client.
  if (error instanceof ResourceReadError) return new ProtocolError(ProtocolErrorCode.InvalidParams, error.message);
  if (error instanceof WorldGatewayError && error.code === 'ERR_WORLD_NOT_FOUND') return new ResourceNotFoundError(uri);
  if (error instanceof WorldGatewayError) return new ProtocolError(ProtocolErrorCode.InternalError, error.message);
  options.logError?.(error, `resource read failed unexpectedly`);
  return new ProtocolError(ProtocolErrorCode.InternalError, 'internal error');
}

/**
 * A prompt's arguments, built once per process: building zod schemas is most of
 * what a new SDK server costs (bench/load.ts profile), and the broker builds one
 * per session, per stateless request and per 2026-07-28 exchange. prompts/list
 * shows the zod object's JSON Schema (required arguments as `required`), but the
 * SDK's own check would refuse a missing one with zod's text (`Invalid arguments
 * for prompt orient: url: Invalid input: expected string, received undefined`).
 * So the check here passes the arguments on, and a missing or blank required
 * argument reaches the prompt, whose
 * `requiredArgument` (src/broker/mcp/prompts.ts) answers `url argument is required`.
 */
function promptArgsSchema(prompt: PromptDefinition): PromptArgsSchema {
  let schema = promptSchemas.get(prompt);
  if (schema !== undefined) return schema;
  const shape: Record<string, z.ZodType<string | undefined>> = {};
  for (const arg of prompt.arguments)
    shape[arg.name] = arg.required
      ? z.string().describe(arg.description)
      : z.string().optional().describe(arg.description);
  const json = z.object(shape)['~standard'].jsonSchema;
  schema = {
    '~standard': {
      version: 1,
      vendor: 'demarkus',
      // The protocol's own schema for prompts/get already holds arguments to string values.
      validate: (value: unknown) => ({ value: (value ?? {}) as PromptArgs }),
      jsonSchema: json,
    },
  };
  promptSchemas.set(prompt, schema);
  return schema;
}

type PromptArgs = Record<string, string | undefined>;
type PromptArgsSchema = StandardSchemaWithJSON<PromptArgs, PromptArgs>;
const promptSchemas = new WeakMap<PromptDefinition, PromptArgsSchema>();

function registerPrompt(
  server: McpServer,
  prompt: PromptDefinition,
  contextOf: ContextOf,
  options: RegisterOptions,
): void {
  const config = { title: prompt.title, description: prompt.description, argsSchema: promptArgsSchema(prompt) };
  server.registerPrompt(prompt.name, config, async (args: Record<string, string | undefined>, ctx: ServerContext) => {
    const toolContext = contextOf(ctx);
    const worlds = toolContext.gateway.list();
    const knowledge = toolContext.knowledge;
    let rendered: Awaited<ReturnType<PromptDefinition['render']>> | string;
    try {
      rendered = await withinCallsPerSubject(options, toolContext, 'prompts/get', async () =>
        prompt.render(args, { now: toolContext.now, worlds, ...(knowledge ? { knowledge } : {}) }),
      );
    } catch (error) {
      // The caller's mistake, in words meant for it: MCP "Prompts" asks for invalid params
      // (-32602) for a missing or invalid argument; the SDK would answer anything thrown as an internal error.
      if (error instanceof PromptArgumentError) throw new ProtocolError(ProtocolErrorCode.InvalidParams, error.message);
      throw error;
    }
    if (typeof rendered === 'string') throw refusedRequest(rendered);
    return {
      description: rendered.description,
      messages: [{ role: 'user' as const, content: { type: 'text' as const, text: rendered.text } }],
    };
  });
}
