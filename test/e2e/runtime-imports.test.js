'use strict';
// What the installed package needs at run time: no runtime dependencies, built files that import
// only n8n-workflow and Node built-ins. The proof inside n8n: n8n runs with a preload script
// (NODE_OPTIONS=--require) that records, inside n8n's process, every module the package's files
// load by name and the file it resolved to. The preload only observes (it calls the original loader).
const fs = require('node:fs');
const Module = require('node:module');
const os = require('node:os');
const path = require('node:path');
const { PKG } = require('./lib/pkg');
const { versions, useN8n } = require('./lib/suite');
const W = require('./lib/workflows');
const S = require('./lib/scenarios');

const ALLOWED = new Set(['n8n-workflow']);
const BUILTINS = new Set(Module.builtinModules);
const isBuiltin = (name) => name.startsWith('node:') || BUILTINS.has(name);

const TRACE_SCRIPT = `'use strict';
const Module = require('node:module');
const fs = require('node:fs');
const path = require('node:path');
const out = process.env.SBL_E2E_REQUIRE_TRACE;
const marker = path.sep + ${JSON.stringify(PKG.name)} + path.sep + 'dist' + path.sep;
const original = Module._load;
Module._load = function (request, parent, isMain) {
	const result = original.apply(this, arguments);
	if (out && parent && typeof parent.filename === 'string' && parent.filename.includes(marker) && !request.startsWith('.')) {
		let entry;
		try {
			entry = { pid: process.pid, request, parent: parent.filename, file: Module._resolveFilename(request, parent, isMain) };
		} catch (error) {
			entry = { pid: process.pid, request, parent: parent.filename, error: String(error) };
		}
		fs.appendFileSync(out, JSON.stringify(entry) + '\\n');
	}
	return result;
};
`;

/** The package.json of the package a resolved file belongs to. */
function packageJsonOf(file) {
	let dir = path.dirname(file);
	while (dir !== path.dirname(dir)) {
		const pj = path.join(dir, 'package.json');
		if (fs.existsSync(pj)) {
			const json = JSON.parse(fs.readFileSync(pj, 'utf8'));
			if (json.name && json.version) return { dir, ...json };
		}
		dir = path.dirname(dir);
	}
	return undefined;
}

/** Every `require(...)` of a built file: literal specifiers and anything else (dynamic). */
function requiresOf(src) {
	const literal = [...src.matchAll(/\brequire\(\s*(['"])([^'"]+)\1\s*\)/g)].map((m) => m[2]);
	const all = [...src.matchAll(/\brequire\s*\(/g)].length;
	const dynamicImports = [...src.matchAll(/\bimport\s*\(/g)].length;
	return { literal, dynamic: all - literal.length, dynamicImports };
}

describe.each(versions())('n8n %s.x: runtime imports of the installed package', (major) => {
	const traceDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sbl-e2e-trace-'));
	const traceScript = path.join(traceDir, 'trace-requires.js');
	const traceFile = path.join(traceDir, 'requires.jsonl');
	fs.writeFileSync(traceScript, TRACE_SCRIPT);
	const ctx = useN8n(major, {
		simulator: true,
		env: { NODE_OPTIONS: `--require ${traceScript}`, SBL_E2E_REQUIRE_TRACE: traceFile },
	});
	afterAll(() => fs.rmSync(traceDir, { recursive: true, force: true }));

	const trace = () =>
		fs.existsSync(traceFile)
			? fs
					.readFileSync(traceFile, 'utf8')
					.split('\n')
					.filter(Boolean)
					.map((l) => JSON.parse(l))
			: [];

	test('the installed package declares no runtime dependencies and brings no node_modules', () => {
		const dir = ctx.n8n.packageDir;
		expect(dir).toBe(path.join(ctx.n8n.userFolder, '.n8n', 'nodes', 'node_modules', PKG.name));
		const pj = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
		for (const key of [
			'dependencies',
			'optionalDependencies',
			'bundleDependencies',
			'bundledDependencies',
		]) {
			expect({ key, value: pj[key] }).toEqual({ key, value: undefined });
		}
		expect(Object.keys(pj.peerDependencies || {})).toEqual(['n8n-workflow']);
		expect(fs.existsSync(path.join(dir, 'node_modules'))).toBe(false);
	});

	test('built files require only n8n-workflow, Node built-ins and files of the package', () => {
		const dir = ctx.n8n.packageDir;
		const files = S.findFiles(path.join(dir, 'dist'), (n) => n.endsWith('.js'));
		expect(files.length).toBeGreaterThan(10);
		const external = new Map();
		for (const file of files) {
			const { literal, dynamic, dynamicImports } = requiresOf(fs.readFileSync(file, 'utf8'));
			expect({ file, dynamic, dynamicImports }).toEqual({ file, dynamic: 0, dynamicImports: 0 });
			for (const spec of literal) {
				if (spec.startsWith('.')) {
					// A relative require must stay inside the package and exist.
					const target = require.resolve(path.resolve(path.dirname(file), spec));
					expect(target.startsWith(dir + path.sep)).toBe(true);
					continue;
				}
				if (!external.has(spec)) external.set(spec, []);
				external.get(spec).push(path.relative(dir, file));
			}
		}
		const names = [...external.keys()];
		expect(names.filter((n) => !ALLOWED.has(n) && !isBuiltin(n))).toEqual([]);
		// Not vacuous: the nodes require n8n-workflow.
		expect(external.get('n8n-workflow').length).toBeGreaterThan(3);
		console.log(
			`n8n ${ctx.n8n.version}: external requires of the built files: ${names.sort().join(', ')}`,
		);
	});

	test("the Real Estate Estimate node checks and builds its body inside n8n, loading only n8n's n8n-workflow and built-ins (traced in n8n's process)", async () => {
		const { n8n, sim } = ctx;
		const cred = await S.estimateCredential(ctx, 'imports');
		const node = (overrides) =>
			S.packageNode('realEstateEstimate', {
				name: 'Real Estate Estimate',
				cred,
				parameters: {
					resource: 'estimate',
					operation: 'get',
					identifyBy: 'cadastre',
					knr: '5001',
					gnr: 60,
					bnr: 7,
					overrides,
					valuation: {
						valuationValues: { date: '2022-03-01', price: 3100000, saleType: 'Fritt salg' },
					},
					options: {},
				},
			});

		// Valid overrides: the node builds the body, the estimate arrives.
		const ok = await S.deployNodeWorkflow(ctx, node({ usableArea: '74', buildYear: 1985 }), {
			prefix: 'body-ok',
		});
		const good = await S.runWorkflow(ctx, ok, {}, { apiPrefix: sim.estimatePrefix });
		expect(good.res.status).toBe(200);
		expect(good.exec.status).toBe('success');
		expect(good.apiCalls.map((c) => [c.method, c.path, c.status])).toEqual([
			['POST', `${sim.estimatePrefix}/RealEstates/5001/60/7/0/0/EvEstimate`, 200],
		]);
		// the string "74" became the number 74
		expect(good.apiCalls[0].body).toEqual({
			usableArea: 74,
			buildYear: 1985,
			valuation: { date: '2022-03-01', price: 3100000, saleType: 'Fritt salg' },
		});
		expect(good.res.json[0].approvedTotalMarketValue).toEqual(expect.any(Number));

		// An invalid override: the node names the field and the rule, and nothing is sent.
		const bad = await S.deployNodeWorkflow(ctx, node({ usableArea: 74.5 }), { prefix: 'body-bad' });
		const refused = await S.runWorkflow(ctx, bad, {}, { apiPrefix: sim.estimatePrefix });
		expect(refused.res.status).toBe(500);
		expect(refused.apiCalls).toHaveLength(0);
		expect(W.executionError(refused.exec).message).toBe(
			'Item 1: "Overrides → Usable Area (BRA)" must be a whole number of 0 or more, got 74.5',
		);

		const entries = trace();
		// Everything the package loaded by name at run time: n8n-workflow (n8n's) and built-ins.
		const requested = [...new Set(entries.map((e) => e.request))].sort();
		expect(requested.filter((r) => !ALLOWED.has(r) && !isBuiltin(r))).toEqual([]);
		const nw = entries.find((e) => e.request === 'n8n-workflow');
		expect(packageJsonOf(nw.file).dir).toBe(
			path.join(n8n.install.dir, 'node_modules', 'n8n-workflow'),
		);
		console.log(`n8n ${n8n.version}: the package loaded ${requested.join(', ')}`);
	});
});
