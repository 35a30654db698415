'use strict';
// The rank timeline draws three trace types. The full plotly.js (4.6 MB) costs 1-2 s of script
// parsing before anything is drawn; core plus these three is a third of that. scattergl is the
// strict (precompiled, no `new Function`) variant, so it runs under script-src 'self'.
var Plotly = require('plotly.js/lib/core');

Plotly.register([
    require('plotly.js/lib/scatter'),
    require('plotly.js/src/traces/scattergl/strict'),
    require('plotly.js/lib/heatmap'),
]);

module.exports = Plotly;
