import type { WorldLogger } from '../world/handler/context.ts';

/** One JSON object per line on stderr: the shape log collectors expect, with no dependency. */
export function jsonLogger(component: string): WorldLogger {
  const write = (level: string) => (fields: Record<string, unknown>, message: string) => {
    process.stderr.write(
      `${JSON.stringify({ time: new Date().toISOString(), level, component, msg: message, ...fields })}\n`,
    );
  };
  return { info: write('info'), warn: write('warn'), error: write('error') };
}
