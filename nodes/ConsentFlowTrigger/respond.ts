/** The Respond option, read once, and the carrier from webhook() to execute() (docs/architecture.md, "Who answers"). */
import { answererOf, type Answerer, type Ack, type RespondMode } from '../shared/webhook/decide';
import { nativelyResolved, withNativeResolvers } from '../shared/n8n-compat';
import { ALL_EVENT_OPTIONS } from '../shared/webhook/events';

export const DEFAULT_RESPOND: RespondMode = 'onReceived';

export const RESPOND_OPTIONS: Array<{ name: string; value: RespondMode; description: string }> = [
	{
		name: 'Immediately',
		value: 'onReceived',
		description: 'Answer 200 once n8n has stored the execution, before the workflow runs',
	},
	{
		name: 'When the Workflow Finishes',
		value: 'lastNode',
		description: 'Answer 200 after the workflow succeeded, 500 if it failed',
	},
];

/** The one reading of Respond; self-contained, as n8n 1.x evaluates its source in the templates below. */
const isLastNode = (p: Record<string, unknown>) => p.respond === 'lastNode';

const template = (then: string, otherwise: string) =>
	`={{(${String(isLastNode)})($parameter) ? '${then}' : '${otherwise}'}}`;

/** `responseMode` and `responseData` of the webhook description; template and resolver differ on purpose. */
export const RESPONSE_FIELDS = withNativeResolvers({
	responseMode: {
		template: template('lastNode', 'responseNode'),
		resolve: (p) => (isLastNode(p) ? 'lastNode' : 'onReceived'),
	},
	responseData: {
		template: template('noData', ''),
		resolve: (p) => (isLastNode(p) ? 'noData' : ''),
	},
});

/** Whether n8n answers Immediately itself once it stored the execution: it resolved responseMode natively. */
export function answersAtEnqueue(parameters: Record<string, unknown>): boolean {
	return nativelyResolved(parameters, RESPONSE_FIELDS, 'responseMode') === 'onReceived';
}

export function answerer(respond: unknown, saved: Record<string, unknown>): Answerer {
	return answererOf(respond === 'lastNode' ? 'lastNode' : 'onReceived', answersAtEnqueue(saved));
}

export const CARRIER = 'sblDelivery';

export interface Carrier {
	option: string;
	key: string | null;
	answeredBy: Answerer;
	nonce: string;
	ack: Ack | null;
	/** Where execute() asks n8n to save the key before it answers (save-request.ts). */
	saveUrl?: string;
}

const ANSWERERS: readonly string[] = ['n8n-when-stored', 'execute', 'n8n-after-run'];

/** The carrier webhook() wrote on an input item; null when missing or malformed. */
export function readCarrier(item: Record<string, unknown>): Carrier | null {
	const raw = item[CARRIER] as Partial<Carrier> | null | undefined;
	if (typeof raw !== 'object' || raw === null) return null;
	if (!ALL_EVENT_OPTIONS.includes(raw.option!) || !ANSWERERS.includes(raw.answeredBy!)) return null;
	return { key: null, nonce: '', ack: null, ...raw } as Carrier;
}
