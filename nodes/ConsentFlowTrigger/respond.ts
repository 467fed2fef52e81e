/**
 * When the trigger's delivery is answered, and how a delivery travels from `webhook()` to the
 * node's `execute()`. Pure facts and functions, no n8n imports.
 *
 * Respond modes (the `respond` parameter):
 * - `onReceived` (Immediately): n8n's webhook response mode `responseNode`. `webhook()` returns
 *   the item with `noWebhookResponse`, so n8n saves the workflow's static data (the remembered
 *   ids) before it creates the execution, and does not answer itself. The answer comes from the
 *   node's `execute()`, the first step of the execution, through `sendResponse` (relayed from
 *   the worker in queue mode): a delivery is answered 200 only once its execution exists and has
 *   started. The body is a Buffer, which n8n writes to the response as it is (any other body
 *   would be dropped, n8n having been told there is no webhook response).
 * - `lastNode` (When the Workflow Finishes): n8n answers after the workflow ended: 200 (no body)
 *   when it succeeded, 500 when it failed, so the service redelivers a failed run
 *   (at-least-once). The id is remembered as processed only after a 2xx answer.
 *
 * Both webhook description fields carry n8n 2.x's native resolvers (the same template strings
 * plus a function of the parameters, under `Symbol.for('n8n.webhookDescriptionResolvers')`), so
 * n8n reads them without its expression engine; n8n 1.x ignores the symbol and evaluates the
 * templates, which give the same values.
 */

export type RespondMode = 'onReceived' | 'lastNode';

export const DEFAULT_RESPOND: RespondMode = 'onReceived';

export const RESPOND_OPTIONS: Array<{ name: string; value: RespondMode; description: string }> = [
	{
		name: 'Immediately',
		value: 'onReceived',
		description:
			'Answer 200 as soon as n8n has stored the execution (n8n 2.x), before the workflow runs. The ID is remembered at once; a run that fails later is not redelivered.',
	},
	{
		name: 'When the Workflow Finishes',
		value: 'lastNode',
		description:
			'Answer 200 only after the workflow succeeded, 500 if it failed, so that the service delivers it again (at-least-once). The ID is remembered only after success.',
	},
];

/** The respond mode of the node's parameters (anything unknown is the default). */
export function respondMode(parameters: Record<string, unknown>): RespondMode {
	return parameters.respond === 'lastNode' ? 'lastNode' : 'onReceived';
}

const RESOLVERS = Symbol.for('n8n.webhookDescriptionResolvers');

interface FieldResolver {
	template: string;
	resolve: (parameters: Record<string, unknown>) => unknown;
}

/**
 * A field computed by a self-contained function of the parameters: the template inlines the
 * function's source, so the expression engine (n8n 1.x) and the native resolver (n8n 2.x) run
 * the same code.
 */
function fromFunction(fn: (parameters: Record<string, unknown>) => unknown): FieldResolver {
	return { template: `={{(${String(fn)})($parameter)}}`, resolve: fn };
}

/** The `responseMode` and `responseData` fields of the webhook description, resolvers included. */
export function responseFields(): { responseMode: string; responseData: string } {
	// Self-contained on purpose (see fromFunction): no outer identifiers inside these functions.
	const fields = {
		responseMode: fromFunction((p) => (p.respond === 'lastNode' ? 'lastNode' : 'responseNode')),
		responseData: fromFunction((p) => (p.respond === 'lastNode' ? 'noData' : '')),
	};
	const described = {
		responseMode: fields.responseMode.template,
		responseData: fields.responseData.template,
	};
	Object.defineProperty(described, RESOLVERS, { value: fields, enumerable: true });
	return described;
}

/**
 * What `webhook()` hands to `execute()` with each item, beside its `json`: the output it belongs
 * on and the duplicate key (null: no id). The item is the node's input only; `execute()` puts
 * the `json` alone on the output, so users never see this.
 */
export const CARRIER = 'sblDelivery';

export interface Carrier {
	output: number;
	key: string | null;
	respond: RespondMode;
	/** Random per accepted copy (see claimDelivery in dedupe.ts); '' when unknown. */
	nonce: string;
	/** The acknowledgement execute() answers with (Immediately); null when unknown. */
	ack: CarriedAck | null;
}

/** The acknowledgement body (see DeliveryAck in the node). */
export interface CarriedAck {
	received: true;
	event: string | null;
	webhookId: string | null;
	status: 'emitted' | 'duplicate';
}

function readAck(raw: unknown): CarriedAck | null {
	if (typeof raw !== 'object' || raw === null) return null;
	const { event, webhookId, status } = raw as Record<string, unknown>;
	return {
		received: true,
		event: typeof event === 'string' ? event : null,
		webhookId: typeof webhookId === 'string' ? webhookId : null,
		status: status === 'duplicate' ? 'duplicate' : 'emitted',
	};
}

/** Reads the carrier of an input item; null when it is missing or malformed. */
export function readCarrier(item: Record<string, unknown>, outputs: number): Carrier | null {
	const raw = item[CARRIER];
	if (typeof raw !== 'object' || raw === null) return null;
	const { output, key, respond, nonce, ack } = raw as Record<string, unknown>;
	if (typeof output !== 'number' || !Number.isInteger(output) || output < 0 || output >= outputs) {
		return null;
	}
	return {
		output,
		key: typeof key === 'string' ? key : null,
		respond: respond === 'lastNode' ? 'lastNode' : 'onReceived',
		nonce: typeof nonce === 'string' ? nonce : '',
		ack: readAck(ack),
	};
}

/**
 * Deliveries being run under "When the Workflow Finishes" in this process (memory key + NUL +
 * delivery key): a copy that arrives while the first is still running is refused with a
 * retryable status instead of running twice.
 */
const inFlight = new Set<string>();

/** Marks a delivery as running; false when it already is. */
export function beginInFlight(memoryKey: string, key: string): boolean {
	const id = `${memoryKey}\u0000${key}`;
	if (inFlight.has(id)) return false;
	inFlight.add(id);
	return true;
}

export function endInFlight(memoryKey: string, key: string): void {
	inFlight.delete(`${memoryKey}\u0000${key}`);
}

/** For tests: forget running deliveries. */
export function resetInFlight(): void {
	inFlight.clear();
}
