import { savedOutputs } from '../shared/webhook/events';

function isExpression(value: unknown): boolean {
	if (typeof value === 'string') return value.startsWith('=');
	if (Array.isArray(value)) return value.some(isExpression);
	if (value !== null && typeof value === 'object') return Object.values(value).some(isExpression);
	return false;
}

// events.ts's outputs rule, called so that execute() evaluates no expression; null if a parameter holds one.
export function staticOutputNames(
	parameters: Record<string, unknown> | undefined,
): string[] | null {
	if (isExpression(parameters?.events) || isExpression(parameters?.outputMode)) return null;
	return savedOutputs(parameters).map((output) => output.displayName);
}
