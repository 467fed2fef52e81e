// Statements about the services that the descriptions (../shared/api) do not make, once written as
// fact (issue 48). Each must stay out of what builders read: panels, hints, error texts, README,
// docs and examples. What is not published is worded as an assumption where it stands.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '../../..');

function filesUnder(dir, exts) {
	return fs
		.readdirSync(path.join(ROOT, dir), { recursive: true })
		.filter((f) => exts.some((e) => f.endsWith(e)))
		.map((f) => path.join(dir, f));
}

const SOURCES = [
	...filesUnder('nodes', ['.ts', '.json']),
	...filesUnder('credentials', ['.ts']),
	...filesUnder('examples', ['.json', '.md']),
	...fs
		.readdirSync(path.join(ROOT, 'docs'))
		.filter((f) => f.endsWith('.md'))
		.map((f) => `docs/${f}`),
	'README.md',
	'CONTRIBUTING.md',
];

// Whitespace collapsed (a phrase may be wrapped across lines), JSON escapes read as text.
const text = (file) =>
	fs
		.readFileSync(path.join(ROOT, file), 'utf8')
		.replace(/\\n/g, ' ')
		.replace(/\s*\n\s*(\/\/ |\* )?/g, ' ')
		.replace(/\s+/g, ' ');

const UNPUBLISHED = [
	// "Retry and delivery guarantees: not shown."
	/delivers it again/i,
	/(?<!(if|whether) )the service retries\b/i,
	/(?<!if )(the service|it) redelivers/i,
	/redelivery then runs it again/i,
	/retries pile up\.? ?$/i,
	// 403 bodies and meaning of the flow service: not shown
	/lacks the "sbl" scope/i,
	// payload and responses of DELETE: not shown
	/deleting (again|twice) is safe/i,
	// the response of flow creation: not shown
	/the service answers with the flow/i,
	// error bodies: not shown
	/both forms the descriptions show/i,
	// the estimate API's authentication scheme, token source and scopes: not shown
	/estimate:read/i,
	// sources that are not the descriptions
	/public deployment/i,
	/only public client/i,
	// the description says it of client credentials, not of the webhook key
	/secret (must be|is) reset at once/i,
	// GET /api/resource is "a generic example of a call with a token"
	/which answers with the token's client/i,
];

// Norwegian terms in panel text: only in parentheses after the English name.
const NORWEGIAN =
	/(?<!\()\b(fødselsnummer|kommunenummer|gårdsnummer|bruksnummer|festenummer|seksjonsnummer|andelsnummer|Leilighet|Enebolig|Rekkehus|Tomannsbolig|Selveier|Eierseksjon|Eiet|Festet|Fritt salg)\b/iu;

test('nothing states what the descriptions do not', () => {
	const found = SOURCES.flatMap((file) => {
		const body = text(file);
		return UNPUBLISHED.map((re) => body.match(re)?.[0])
			.filter(Boolean)
			.map((phrase) => `${file}: ${phrase}`);
	});
	expect(found).toEqual([]);
});

test('panel text is English (a Norwegian term only in parentheses after its English name)', () => {
	// string literals with a space: text a builder reads, not a key name
	const literal = /(['"`])(?:(?!\1)[^\\\n]|\\.)* (?:(?!\1)[^\\\n]|\\.)*\1/g;
	const found = SOURCES.filter((f) => /^(nodes|credentials)\/.*\.ts$/.test(f)).flatMap((file) =>
		(fs.readFileSync(path.join(ROOT, file), 'utf8').match(literal) || [])
			.filter((l) => NORWEGIAN.test(l))
			.map((l) => `${file}: ${l}`),
	);
	expect(found).toEqual([]);
});

test('the phrases are caught where they stand (the scan reads wrapped lines)', () => {
	const sample = 'so that the service\n  delivers it again; Deleting again\nis safe';
	const collapsed = sample.replace(/\s*\n\s*/g, ' ');
	expect(UNPUBLISHED.filter((re) => re.test(collapsed))).toHaveLength(2);
	expect(NORWEGIAN.test("'e.g. Leilighet, Rekkehus'")).toBe(true);
	expect(NORWEGIAN.test("'Farm number (gårdsnummer): a whole number'")).toBe(false);
});
