import { EVENTS, type EventCatalogue } from '../shared/webhook/events';

function isExpression(value: unknown): boolean {
	if (typeof value === 'string') return value.startsWith('=');
	if (Array.isArray(value)) return value.some(isExpression);
	if (value !== null && typeof value === 'object') return Object.values(value).some(isExpression);
	return false;
}

// The outputs rule n8n evaluates (events.ts `outputsOf`), called as is, so execute() evaluates no
// expression (docs/architecture.md); null when Events or Outputs holds one: ask n8n then. No version: the newest.
export function staticOutputNames(
	parameters: Record<string, unknown> | undefined,
	nodeVersion?: number,
	catalogue: EventCatalogue = EVENTS,
): string[] | null {
	if (isExpression(parameters?.events) || isExpression(parameters?.outputMode)) return null;
	return catalogue.outputsOf(parameters, nodeVersion).map((output) => output.displayName);
}
