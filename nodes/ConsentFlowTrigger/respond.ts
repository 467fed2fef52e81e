/**
 * When the trigger's delivery is answered, and how a delivery travels from `webhook()` to the
 * node's `execute()`. Pure facts and functions; n8n's internals only through n8n-compat.ts.
 *
 * Respond modes (the `respond` parameter):
 * - `onReceived` (Immediately), two ways, chosen by the n8n that runs the node:
 *   - n8n 2.x resolving the webhook description natively (its resolvers, below, and parameters
 *     without expressions): n8n's response mode `onReceived`. n8n answers after
 *     `WorkflowRunner.run` has stored the execution (and, in queue mode, put it in the queue):
 *     it then reads `webhookResponse` of the node's result and saves the workflow's static data.
 *     The node's result carries its answer so that the delivery's id is recorded (process
 *     memory and static data) at that moment (`answerWhenStored`), so an id is remembered, and
 *     saved, only once its execution was durably taken; a process stopped before that never answers and
 *     never saved the id, so the service's retry runs. See {@link answersAtEnqueue}.
 *   - otherwise (n8n 1.x, or parameters with expressions): n8n's response mode `responseNode`.
 *     `webhook()` returns the item with `noWebhookResponse`, so n8n does not answer itself; the
 *     id is remembered only when the execution answers (answer.ts). The answer comes from the
 *     node's `execute()`, the first step of the execution, through `sendResponse` (relayed from
 *     the worker in queue mode): a delivery is answered 200 only once its execution exists and
 *     has started. The body is a Buffer, which n8n writes to the response as it is (any other
 *     body would be dropped, n8n having been told there is no webhook response). n8n 1.x
 *     answers `onReceived` before it creates the execution, which is why it is not used there.
 * - `lastNode` (When the Workflow Finishes): n8n answers after the workflow ended: 200 (no body)
 *   when it succeeded, 500 when it failed, so the service redelivers a failed run
 *   (at-least-once). The id is remembered as processed only after a 2xx answer.
 *
 * Both webhook description fields carry native resolvers beside their templates (n8n-compat.ts),
 * so n8n 2.x reads them without its expression engine; n8n 1.x evaluates the templates. The
 * templates and resolvers agree on every field but one: for Immediately, the `responseMode`
 * template says `responseNode` and its resolver says `onReceived` — on purpose, the resolver
 * being used is what tells the node that n8n answers after storing the execution (n8n 2.x).
 */
import { resolvesNatively, withNativeResolvers, type DescriptionField } from '../shared/n8n-compat';

export { resetNativeResolution } from '../shared/n8n-compat';

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

/**
 * A field computed by a self-contained function of the parameters: the template inlines the
 * function's source, so the expression engine (n8n 1.x) and the native resolver (n8n 2.x) run
 * the same code.
 */
function fromFunction(fn: (parameters: Record<string, unknown>) => unknown): DescriptionField {
	return { template: `={{(${String(fn)})($parameter)}}`, resolve: fn };
}

/**
 * Whether n8n answers this node's Immediately deliveries after storing the execution (response
 * mode `onReceived` through the native resolver; see n8n-compat.ts): only where n8n resolves the
 * description natively for these parameters.
 */
export function answersAtEnqueue(parameters: Record<string, unknown>): boolean {
	return respondMode(parameters) === 'onReceived' && resolvesNatively(parameters);
}

/** The `responseMode` and `responseData` fields of the webhook description, resolvers included. */
export function responseFields(): { responseMode: string; responseData: string } {
	// Self-contained on purpose (see fromFunction): no outer identifiers inside these functions.
	return withNativeResolvers({
		responseMode: {
			// the template (n8n 1.x) and the resolver (n8n 2.x) differ on purpose: see above
			template: fromFunction((p) => (p.respond === 'lastNode' ? 'lastNode' : 'responseNode'))
				.template,
			resolve: (p) => (p.respond === 'lastNode' ? 'lastNode' : 'onReceived'),
		},
		responseData: fromFunction((p) => (p.respond === 'lastNode' ? 'noData' : '')),
	});
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
	/** n8n already answered the delivery when it stored the execution (see answersAtEnqueue). */
	answered: boolean;
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
	const { output, key, respond, nonce, ack, answered } = raw as Record<string, unknown>;
	if (typeof output !== 'number' || !Number.isInteger(output) || output < 0 || output >= outputs) {
		return null;
	}
	return {
		output,
		key: typeof key === 'string' ? key : null,
		respond: respond === 'lastNode' ? 'lastNode' : 'onReceived',
		nonce: typeof nonce === 'string' ? nonce : '',
		ack: readAck(ack),
		answered: answered === true,
	};
}

/**
 * Deliveries in flight in this process (memory key + NUL + delivery key): being run under "When
 * the Workflow Finishes", or accepted under Immediately and not yet stored by n8n (see
 * answersAtEnqueue). A copy that arrives meanwhile is refused with a retryable status (409)
 * instead of running twice or being answered "duplicate" for a delivery that may still fail.
 */
const inFlight = new Set<string>();

/** Whether a copy of this delivery is running (or not yet stored) in this process. */
export function isInFlight(memoryKey: string, key: string): boolean {
	return inFlight.has(`${memoryKey}\u0000${key}`);
}

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
