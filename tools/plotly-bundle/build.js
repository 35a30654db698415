// Same esbuild settings as plotly.js's own esbuild-config.js, with our entry point.
const esbuild = require('esbuild');
const { environmentPlugin } = require('esbuild-plugin-environment');
const { glsl } = require('esbuild-plugin-glsl');
const InlineCSSPlugin = require('esbuild-plugin-inline-css');
const version = require('plotly.js/package.json').version;

esbuild.build({
    entryPoints: ['./entry.js'],
    outfile: process.argv[2] || './plotly.min.js',
    format: 'iife',
    globalName: 'Plotly',
    bundle: true,
    minify: true,
    sourcemap: false,
    legalComments: 'none',
    banner: {
        js: `/**\n* plotly.js (strict - minified, partial: scatter, scattergl, heatmap) v${version}\n` +
            '* Copyright 2012-2026, Plotly, Inc.\n* All rights reserved.\n* Licensed under the MIT license\n*/',
    },
    plugins: [InlineCSSPlugin(), glsl({ minify: true }), environmentPlugin({ NODE_DEBUG: false })],
    alias: { regl: '@plotly/regl', stream: 'stream-browserify' },
    define: { global: 'window', 'define.amd': 'false' },
    target: 'es2016',
    logLevel: 'info',
}).catch(() => process.exit(1));
