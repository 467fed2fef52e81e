// Only signed facts decide: docs/architecture.md#only-signed-facts-decide-issue-31
import type { INodeProperties } from 'n8n-workflow';
import type { IncomingDelivery } from './cloudevents';
import { topLevelMembers, withoutBom } from './json-scan';
import { legacyKeyOfSignedBytes } from './webhook-id';

export type UnsignedReason = 'binary-mode' | 'envelope-in-binary' | 'unsigned-time';

export const UNSIGNED_ATTRIBUTES = ['id', 'source', 'time', 'type'] as const;

const ENVELOPE_MEMBERS = ['webhookId', 'event', 'type', 'payload', 'specversion'];

export interface TrustRules {
	acceptUnsigned: boolean;
	maxAgeSeconds: number;
}

/** Whether a body names its own event or id: resent with `ce-` headers it would be relabelled. */
export function isEnvelopeLike(rawBody: Buffer): boolean {
	return topLevelMembers(withoutBom(rawBody), ENVELOPE_MEMBERS).size > 0;
}

export function unsignedRefusal(
	delivery: IncomingDelivery,
	rawBody: Buffer,
	rules: TrustRules,
): UnsignedReason | null {
	if (delivery.cloudEvent?.mode !== 'binary') return null;
	if (!rules.acceptUnsigned) return 'binary-mode';
	if (isEnvelopeLike(rawBody)) return 'envelope-in-binary';
	if (rules.maxAgeSeconds > 0) return 'unsigned-time';
	return null;
}

/** What a delivery keyed on its bytes is keyed with (verify.ts). */
interface SignedBody {
	bodyKeys: () => string[];
	digests: readonly string[];
}

/** One key per active secret, the current one first (all recorded), and the keys earlier versions stored. */
function bodyKeys(signed: SignedBody): Pick<IncomingDelivery, 'deliveryKey' | 'otherKeys'> {
	const [key, ...also] = signed.bodyKeys();
	return {
		deliveryKey: key ?? null,
		otherKeys: { also, legacy: signed.digests.map(legacyKeyOfSignedBytes) },
	};
}

// No header can make two bodies one delivery, nor one body two; nor can the secret that signed it.
export function withSignedKey(delivery: IncomingDelivery, signed: SignedBody): IncomingDelivery {
	if (delivery.cloudEvent?.mode === 'binary') {
		return {
			...delivery,
			...bodyKeys(signed),
			cloudEvent: { ...delivery.cloudEvent, unsigned: [...UNSIGNED_ATTRIBUTES] },
		};
	}
	if (delivery.deliveryKey !== null) return delivery;
	return { ...delivery, ...bodyKeys(signed) };
}

const NOTHING_RAN = 'Nothing was run.';

export const UNSIGNED_ANSWERS: Record<
	UnsignedReason,
	{ received: false; status: 'unsigned'; reason: UnsignedReason; message: string }
> = {
	'binary-mode': {
		received: false,
		status: 'unsigned',
		reason: 'binary-mode',
		message: `CloudEvents in binary mode carry the event type, id and time in ce- headers, which the signature does not cover, and "Accept Unsigned CloudEvents Headers" is off. Send the event as the service's envelope or as a structured CloudEvent. ${NOTHING_RAN}`,
	},
	'envelope-in-binary': {
		received: false,
		status: 'unsigned',
		reason: 'envelope-in-binary',
		message: `The signed body is itself an envelope or a structured CloudEvent, sent with ce- headers: its event and id would come from unsigned headers. Send it without ce- headers. ${NOTHING_RAN}`,
	},
	'unsigned-time': {
		received: false,
		status: 'unsigned',
		reason: 'unsigned-time',
		message: `Maximum Age is set, and in binary mode the time (ce-time) is not signed, so the age of this delivery cannot be checked. ${NOTHING_RAN}`,
	},
};

export const ACCEPT_UNSIGNED_OPTION: INodeProperties = {
	displayName: 'Accept Unsigned CloudEvents Headers',
	name: 'acceptUnsignedHeaders',
	type: 'boolean',
	default: false,
	description:
		'Whether to accept CloudEvents in binary mode, whose event type, ID and time come in ce- headers that the signature does not cover. Anyone holding one signed body could then send it once as another event. Off: such deliveries are refused (400) and nothing runs.',
};
