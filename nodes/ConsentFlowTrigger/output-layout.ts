/**
 * The trigger's output names, computed in plain TypeScript from the node's parameters as saved,
 * for `execute()`. Pure, no n8n imports.
 *
 * Why: the editor needs the outputs to follow Events (CONFIGURED_OUTPUTS, an expression n8n
 * evaluates), but `this.getNodeOutputs()` in `execute()` made n8n evaluate that expression once
 * per execution. Under n8n's lazy expression engine (`N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true`)
 * an execution that evaluates no expression never creates an isolate, and that one evaluation
 * cost the trigger half its rate (15 against 29 deliveries/s, BENCHMARKS.md). The rule below is
 * the same as the expression's for parameters without expressions (the tests hold them equal
 * with n8n-workflow's own evaluation); with an expression in Events or Outputs it returns null
 * and the node asks n8n, as before.
 */

import { OUTPUT_TABLE, SINGLE_OUTPUT_NAME } from '../shared/webhook/events';

/** Whether a parameter value holds an expression (a string starting with `=`, also inside). */
function isExpression(value: unknown): boolean {
	if (typeof value === 'string') return value.startsWith('=');
	if (Array.isArray(value)) return value.some(isExpression);
	if (value !== null && typeof value === 'object') return Object.values(value).some(isExpression);
	return false;
}

/**
 * The output names CONFIGURED_OUTPUTS gives for these parameters (`events`, `outputMode`, as
 * saved in the node), or null when either holds an expression (n8n resolves those first).
 */
export function staticOutputNames(parameters: Record<string, unknown> | undefined): string[] | null {
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
	const chosen = OUTPUT_TABLE.filter((output) => wanted.has(output.value.toLowerCase()));
	return (chosen.length > 0 ? chosen : OUTPUT_TABLE).map((output) => output.name);
}
