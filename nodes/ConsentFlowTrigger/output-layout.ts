import { EVENTS, SINGLE_OUTPUT_NAME, type EventCatalogue } from '../shared/webhook/events';

function isExpression(value: unknown): boolean {
	if (typeof value === 'string') return value.startsWith('=');
	if (Array.isArray(value)) return value.some(isExpression);
	if (value !== null && typeof value === 'object') return Object.values(value).some(isExpression);
	return false;
}

// CONFIGURED_OUTPUTS in TypeScript, so execute() evaluates no expression (docs/architecture.md);
// null when Events or Outputs holds one: ask n8n then. No version: the newest.
export function staticOutputNames(
	parameters: Record<string, unknown> | undefined,
	nodeVersion?: number,
	catalogue: EventCatalogue = EVENTS,
): string[] | null {
	const events = parameters?.events;
	const mode = parameters?.outputMode;
	if (isExpression(events) || isExpression(mode)) return null;
	if (mode === 'single') return [SINGLE_OUTPUT_NAME];
	const picked: unknown[] = Array.isArray(events)
		? events
		: typeof events === 'string'
			? events.split(',')
			: [];
	const wanted = new Set(picked.map((value) => String(value).trim().toLowerCase()));
	const outputs = catalogue.outputTable(nodeVersion);
	const chosen = outputs.filter((output) => wanted.has(output.value.toLowerCase()));
	return (chosen.length > 0 ? chosen : outputs).map((output) => output.name);
}
