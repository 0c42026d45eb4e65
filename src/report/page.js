/* kinformer report page script. Draws what src/report computed and embedded as JSON: the
   header and summary tables, the timeline (one lane per stage and per handler; wheel zooms,
   drag pans), the plots, the markers, and the key search, which only looks up the stories
   Rust told (the words of `kinformer explain`). When everything is drawn it sets
   <html data-ready="1" data-drawn-ms="…">. */
'use strict';
(function () {
  var data = JSON.parse(document.getElementById('data').textContent);
  var tl = data.timeline;
  var LABEL_W = 150;
  var LANE_H = 26;
  var AXIS_H = 22;
  var COLORS = {
    'watch-event': '#8c9aa6', 'list-page': '#3b5bdb',
    'delta': '#74b816', 'delta-replaced': '#7048e8', 'delta-deleted': '#e03131', 'delta-sync': '#f08c00',
    'pop': '#495057',
    'indexer-add': '#2f9e44', 'indexer-update': '#1c7ed6', 'indexer-delete': '#e03131',
    'notify-add': '#2f9e44', 'notify-update': '#1c7ed6', 'notify-delete': '#e03131', 'notify-sync': '#d9480f'
  };
  var MARKERS = {
    'list-start': ['#3b5bdb', 'LIST start'], 'list-done': ['#3b5bdb', 'LIST done'],
    'watch-start': ['#0b7285', 'WATCH start'], 'watch-end': ['#0b7285', 'watch end'],
    'watch-error-410': ['#c92a2a', '410 Gone'], 'watch-error': ['#e8590c', 'watch error'],
    'list-error': ['#e8590c', 'list error'], 'backoff': ['#a61e4d', 'backoff'],
    'relist': ['#7048e8', 'relist'], 'bookmark': ['#868e96', 'bookmark'], 'retry': ['#a61e4d', 'retry'],
    'resync-tick': ['#f08c00', 'resync tick'], 'handler-added': ['#2b8a3e', 'handler added'],
    'handler-removed': ['#5c940d', 'handler removed'], 'synced': ['#2b8a3e', 'synced'],
    'sync-storm': ['#d9480f', 'sync storm'], 'sync-burst': ['#e8590c', 'sync updates'], 'stopped': ['#212529', 'stopped'],
    'slow-handler': ['#c2255c', 'slow handler']
  };
  var view = { from: 0, to: Math.max(tl.span, 1) };

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === 'text') { node.textContent = attrs[k]; } else { node.setAttribute(k, attrs[k]); }
    });
    (children || []).forEach(function (c) { if (c) { node.appendChild(c); } });
    return node;
  }

  function table(head, rows, cls) {
    var t = el('table', cls ? { 'class': cls } : {});
    t.appendChild(el('tr', {}, head.map(function (h) { return el('th', { text: h }); })));
    rows.forEach(function (r) {
      t.appendChild(el('tr', {}, r.map(function (c) {
        var num = typeof c === 'number';
        return el('td', num ? { 'class': 'num', text: String(c) } : { text: String(c) });
      })));
    });
    return t;
  }

  /* Durations and times. */
  function human(us) {
    if (us < 1000) { return Math.round(us) + 'µs'; }
    if (us < 1e6) { return (us / 1000).toFixed(us < 1e4 ? 2 : 1) + 'ms'; }
    return (us / 1e6).toFixed(us < 1e7 ? 3 : 1) + 's';
  }
  function clock(t) {
    var d = new Date((tl.t0 + t) / 1000);
    return d.toISOString().slice(11, 23);
  }

  /* Header and summary. */
  function drawHeader() {
    var h = data.header;
    var facts = [
      ['input', h.input || '-'], ['server', h.server], ['client-go', h.client_go || '-'],
      ['queue', h.queue || '-'], ['resources', h.resources.join(', ') || '-'],
      ['started', h.started], ['duration', h.duration], ['trace lines', String(h.events)]
    ];
    var dl = el('dl', { 'class': 'facts' });
    facts.forEach(function (f) {
      dl.appendChild(el('dt', { text: f[0] }));
      dl.appendChild(el('dd', { text: f[1], 'data-fact': f[0] }));
    });
    var box = document.getElementById('header');
    box.insertBefore(el('h1', { text: 'kinformer report' + (h.resources.length ? ' · ' + h.resources.join(', ') : '') }), box.firstChild);
    document.getElementById('facts').appendChild(dl);
  }

  function drawSummary() {
    var h = data.header;
    var box = document.getElementById('summary');
    var s = h.summary;
    box.appendChild(el('p', { 'class': 'note', text: s
      ? 'Exit summary' + (s.stop_reason ? ' (stopped: ' + s.stop_reason + ')' : '')
      : 'No exit summary in this trace; the counts are its lines.' }));
    var counts = (s && s.counts) || h.counts;
    var more = el('details', {}, [el('summary', { text: 'Events per stage' + (s && s.metrics ? ' and informer metrics' : '') })]);
    more.appendChild(table(['STAGE', 'EVENT', 'COUNT'], Object.keys(counts).map(function (k) {
      var parts = k.split('/');
      return [parts[0], parts[1] || '', counts[k]];
    }), 'counts'));
    if (s && s.handlers && s.handlers.length) {
      var fields = ['notifications', 'adds', 'updates', 'deletes', 'syncs', 'handled', 'panics', 'dropped', 'max_pending', 'mean_latency_us'];
      var head = ['PER HANDLER'].concat(s.handlers.map(function (x) { return x.resource ? x.resource + '/' + x.name : x.name; }));
      box.appendChild(table(head, fields.map(function (f) {
        return [f === 'mean_latency_us' ? 'mean latency' : f.replace('_', ' ')].concat(s.handlers.map(function (x) {
          return f === 'mean_latency_us' ? human(x[f] || 0) : (x[f] || 0);
        }));
      }), 'handlers-summary'));
    }
    if (s && s.metrics && s.metrics.length) {
      var keys = Object.keys(s.metrics[0]).filter(function (k) { return k !== 'resource' && k !== 'name'; });
      more.appendChild(table(['INFORMER METRICS'].concat(s.metrics.map(function (m) { return m.name || m.resource || 'informer'; })),
        keys.map(function (k) { return [k].concat(s.metrics.map(function (m) { return m[k] === undefined ? '-' : m[k]; })); })));
    }
    if (h.diagnoses.length) {
      box.appendChild(el('p', { 'class': 'note', text: 'Diagnoses from inside the controller (Go tap)' }));
      box.appendChild(table(['TIME', 'DIAGNOSIS', 'RESOURCE', 'HANDLER', 'CAUSE'], h.diagnoses.map(function (d) {
        return [d.at, d.what, d.resource, d.handler || '-', d.cause];
      }), 'diagnoses'));
    }
    if (h.proxy.length) {
      var pk = ['lists', 'watches', 'events', 'relists', 'errors', 'requests', 'bytes'];
      box.appendChild(table(['CLIENT', 'STREAM'].concat(pk), h.proxy.map(function (p) {
        return [p.client, p.stream || '(all)'].concat(pk.map(function (k) { return p[k] || 0; }));
      })));
    }
    box.appendChild(more);
  }

  /* Notifications by handler. */
  function drawHandlers() {
    var box = document.getElementById('handlers');
    if (!data.handlers.length) { box.appendChild(el('p', { 'class': 'note', text: 'No handler lines in this trace.' })); return; }
    var inside = data.handlers.some(function (f) { return f.mean_call_us !== null; });
    var head = ['HANDLER', 'add', 'update', 'delete', 'sync', 'initial', 'handled', 'max pending'];
    if (inside) { head = head.concat(['mean queue wait', 'mean call']); }
    var t = table(head, data.handlers.map(function (f) {
      var row = [f.label, f.add, f.update, f.delete, f.sync, f.initial, f.handled, f.max_pending];
      if (inside) {
        row.push(f.mean_queue_us === null ? '-' : human(f.mean_queue_us), f.mean_call_us === null ? '-' : human(f.mean_call_us));
      }
      return row;
    }), 'by-kind');
    Array.prototype.forEach.call(t.querySelectorAll('tr'), function (row, i) {
      var cell = row.children[4];
      cell.className = (cell.className ? cell.className + ' ' : '') + 'sync';
      if (i > 0) {
        row.setAttribute('data-handler', data.handlers[i - 1].label);
        row.setAttribute('data-sync', String(data.handlers[i - 1].sync));
      }
    });
    box.appendChild(t);
  }

  /* Timeline: a canvas over the view [from, to] (µs after the first line). */
  var canvas = document.getElementById('timeline');
  var tooltip = document.getElementById('tooltip');

  function resize(c, height) {
    var ratio = window.devicePixelRatio || 1;
    var width = c.parentNode.clientWidth || 1000;
    c.style.height = height + 'px';
    c.width = Math.round(width * ratio);
    c.height = Math.round(height * ratio);
    var ctx = c.getContext('2d');
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    return { ctx: ctx, width: width, height: height };
  }

  function xOf(t, width) {
    return LABEL_W + (t - view.from) / (view.to - view.from) * (width - LABEL_W - 8);
  }
  function tOf(x, width) {
    return view.from + (x - LABEL_W) / (width - LABEL_W - 8) * (view.to - view.from);
  }

  /* The first index of sorted `ts` at or after `t`. */
  function lowerBound(ts, t) {
    var lo = 0, hi = ts.length;
    while (lo < hi) { var mid = (lo + hi) >> 1; if (ts[mid] < t) { lo = mid + 1; } else { hi = mid; } }
    return lo;
  }

  function niceStep(span, pixels) {
    var raw = span / Math.max(pixels / 110, 1);
    var pow = Math.pow(10, Math.floor(Math.log10(Math.max(raw, 1))));
    var steps = [1, 2, 5, 10];
    for (var i = 0; i < steps.length; i++) { if (pow * steps[i] >= raw) { return pow * steps[i]; } }
    return pow * 10;
  }

  function drawAxis(ctx, width, top, height) {
    var step = niceStep(view.to - view.from, width - LABEL_W);
    ctx.font = '11px system-ui, sans-serif';
    ctx.textBaseline = 'top';
    for (var t = Math.ceil(view.from / step) * step; t <= view.to; t += step) {
      var x = xOf(t, width);
      ctx.fillStyle = '#e9ecef';
      ctx.fillRect(x, top, 1, height);
      ctx.fillStyle = '#5f6b76';
      ctx.fillText('+' + human(t), x + 2, 4);
    }
  }

  function drawTimeline() {
    var height = AXIS_H + tl.lanes.length * LANE_H + 4;
    var c = resize(canvas, height);
    var ctx = c.ctx;
    ctx.clearRect(0, 0, c.width, height);
    drawAxis(ctx, c.width, AXIS_H, height - AXIS_H);
    tl.lanes.forEach(function (lane, i) {
      var y = AXIS_H + i * LANE_H;
      if (i % 2 === 0) { ctx.fillStyle = 'rgba(244,246,248,0.8)'; ctx.fillRect(0, y, c.width, LANE_H); }
      drawTicks(ctx, lane, y, c.width);
    });
    drawMarkers(ctx, c.width);
    drawSelected(ctx, c.width, height);
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(0, AXIS_H, LABEL_W - 4, height - AXIS_H);
    ctx.font = '12px system-ui, sans-serif';
    ctx.textBaseline = 'middle';
    tl.lanes.forEach(function (lane, i) {
      ctx.fillStyle = lane.stage === 'handler' ? '#1d232a' : '#3b4a57';
      ctx.fillText(lane.label, 6, AXIS_H + i * LANE_H + LANE_H / 2, LABEL_W - 12);
    });
    document.getElementById('view-range').textContent =
      'showing ' + clock(view.from) + ' – ' + clock(view.to) + ' (' + human(view.to - view.from) + ')';
  }

  /* One tick per pixel and style: 100k events cost a few thousand rectangles. */
  function drawTicks(ctx, lane, y, width) {
    var start = lowerBound(lane.t, view.from);
    var end = lowerBound(lane.t, view.to + 1);
    var last = {};
    for (var i = start; i < end; i++) {
      var style = lane.c[i];
      var x = Math.floor(xOf(lane.t[i], width));
      if (last[style] === x) { continue; }
      last[style] = x;
      var name = tl.styles[style];
      ctx.fillStyle = COLORS[name] || '#888';
      var sync = name === 'notify-sync' || name === 'delta-sync';
      ctx.fillRect(x, y + (sync ? 3 : 6), sync ? 2 : 1, LANE_H - (sync ? 6 : 12));
    }
  }

  /* Each marker is a line with a triangle; its label goes right of it on a white ground (the
     lane's ticks do not run through it), cut short of the next marker on its lane and left
     out when there is no room: labels never overlap each other or another marker. The
     placed labels are kept in the canvas's data-labels, for tools. */
  function drawMarkers(ctx, width) {
    ctx.font = '11px system-ui, sans-serif';
    ctx.textBaseline = 'top';
    var shown = tl.markers.filter(function (m) { return m.t >= view.from && m.t <= view.to; });
    shown.forEach(function (m) {
      var x = xOf(m.t, width);
      var y = AXIS_H + m.lane * LANE_H;
      ctx.fillStyle = (MARKERS[m.kind] || ['#000'])[0];
      ctx.fillRect(x - 1, y + 1, 2, LANE_H - 2);
      ctx.beginPath();
      ctx.moveTo(x - 4, y + 1); ctx.lineTo(x + 4, y + 1); ctx.lineTo(x, y + 7); ctx.closePath(); ctx.fill();
    });
    var placed = [];
    var freeFrom = {};
    shown.forEach(function (m, i) {
      var x = xOf(m.t, width);
      var left = Math.max(x + 4, freeFrom[m.lane] || 0);
      var right = width - 8;
      for (var j = i + 1; j < shown.length; j++) {
        if (shown[j].lane === m.lane && xOf(shown[j].t, width) - 3 > left) { right = Math.min(right, xOf(shown[j].t, width) - 3); break; }
      }
      var text = canvasLabel(m);
      var w = Math.min(ctx.measureText(text).width, right - left - 4);
      if (left > x + 6 || w < 24) { return; }
      var y = AXIS_H + m.lane * LANE_H + 11;
      ctx.fillStyle = 'rgba(255,255,255,0.92)';
      ctx.fillRect(left, y, w + 4, 13);
      ctx.fillStyle = (MARKERS[m.kind] || ['#000'])[0];
      ctx.fillText(text, left + 2, y + 1, w);
      placed.push([Math.round(left), m.lane, Math.round(left + w + 4)]);
      freeFrom[m.lane] = left + w + 6;
    });
    canvas.setAttribute('data-labels', JSON.stringify(placed));
  }

  /* A marker's label on the canvas: its kind, or for sync updates what sent them and how many
     (`resync: 3 objects`). */
  function canvasLabel(m) {
    if (m.kind === 'sync-burst') { return m.label.split(' to ')[0]; }
    if (m.kind === 'sync-storm') { return m.label.split(' to ')[0].replace('sync storm: ', 'storm: '); }
    return (MARKERS[m.kind] || ['', m.kind])[1];
  }

  /* The searched object's steps: a thin line across every lane at each. */
  var selected = [];
  function drawSelected(ctx, width, height) {
    ctx.fillStyle = 'rgba(31,111,235,0.45)';
    selected.forEach(function (t) {
      if (t >= view.from && t <= view.to) { ctx.fillRect(Math.round(xOf(t, width)), AXIS_H, 1, height - AXIS_H); }
    });
  }

  function markerNear(x, y, width) {
    var lane = Math.floor((y - AXIS_H) / LANE_H);
    var best = null, bestD = 6;
    tl.markers.forEach(function (m) {
      if (m.lane !== lane || m.t < view.from || m.t > view.to) { return; }
      var d = Math.abs(xOf(m.t, width) - x);
      if (d < bestD) { best = m; bestD = d; }
    });
    return best;
  }

  /* Zoom and pan keep every canvas on the same view. */
  function setView(from, to) {
    var min = 50;
    if (to - from < min) { var mid = (from + to) / 2; from = mid - min / 2; to = mid + min / 2; }
    var span = Math.max(tl.span, 1);
    if (to - from > span) { from = 0; to = span; }
    if (from < 0) { to -= from; from = 0; }
    if (to > span) { from -= to - span; to = span; }
    view.from = Math.max(0, from);
    view.to = to;
    redraw();
  }
  function zoom(factor, at) {
    var center = at === undefined ? (view.from + view.to) / 2 : at;
    setView(center - (center - view.from) * factor, center + (view.to - center) * factor);
  }

  function wireTimeline() {
    var drag = null;
    canvas.addEventListener('wheel', function (e) {
      e.preventDefault();
      var rect = canvas.getBoundingClientRect();
      zoom(e.deltaY < 0 ? 0.8 : 1.25, tOf(e.clientX - rect.left, rect.width));
    }, { passive: false });
    canvas.addEventListener('mousedown', function (e) { drag = { x: e.clientX, from: view.from, to: view.to }; });
    window.addEventListener('mouseup', function () { drag = null; });
    canvas.addEventListener('mousemove', function (e) {
      var rect = canvas.getBoundingClientRect();
      if (drag) {
        var dt = (e.clientX - drag.x) / (rect.width - LABEL_W - 8) * (drag.to - drag.from);
        setView(drag.from - dt, drag.to - dt);
        return;
      }
      var m = markerNear(e.clientX - rect.left, e.clientY - rect.top, rect.width);
      tooltip.hidden = !m;
      if (m) {
        tooltip.textContent = clock(m.t) + '  ' + m.label;
        tooltip.style.left = Math.min(e.clientX - rect.left + 12, rect.width - 260) + 'px';
        tooltip.style.top = (e.clientY - rect.top + 12) + 'px';
      }
    });
    canvas.addEventListener('mouseleave', function () { tooltip.hidden = true; });
    canvas.addEventListener('dblclick', function (e) {
      var rect = canvas.getBoundingClientRect();
      zoom(0.5, tOf(e.clientX - rect.left, rect.width));
    });
    document.getElementById('zoom-in').addEventListener('click', function () { zoom(0.5); });
    document.getElementById('zoom-out').addEventListener('click', function () { zoom(2); });
    document.getElementById('zoom-reset').addEventListener('click', function () { setView(0, tl.span); });
    window.addEventListener('resize', redraw);
  }

  function drawLegend() {
    var box = document.getElementById('legend');
    tl.styles.forEach(function (name) {
      var swatch = el('i');
      swatch.style.background = COLORS[name];
      box.appendChild(el('span', {}, [swatch, document.createTextNode(name)]));
    });
    /* The lanes as a list too: what the canvas draws, readable by tools. */
    var list = document.getElementById('lanes');
    tl.lanes.forEach(function (lane) {
      var sync = 0;
      lane.c.forEach(function (c) { if (tl.styles[c] === 'notify-sync') { sync += 1; } });
      list.appendChild(el('li', {
        'data-lane': lane.label, 'data-stage': lane.stage, 'data-ticks': String(lane.t.length),
        'data-sync': String(sync), text: lane.label
      }));
    });
  }

  /* Plots: step lines, the largest value of each pixel column kept (a peak is never lost). */
  var plotCanvases = [];
  function drawPlotsOnce() {
    var box = document.getElementById('plots');
    tl.plots.forEach(function (p) {
      if (!p.t.length) { return; }
      var peak = p.unit === 'us' ? human(p.max) : String(p.max);
      var cap = el('figcaption', {}, [el('b', { text: p.title }), document.createTextNode(' · peak ' + peak)]);
      var c = el('canvas');
      var attrs = { 'class': 'plot', 'data-what': p.what, 'data-max': String(p.max), 'data-title': p.title };
      if (p.handler) { attrs['data-handler'] = p.handler; }
      var fig = el('figure', attrs, [cap, el('div', { 'class': 'canvas-box' }, [c])]);
      box.appendChild(fig);
      plotCanvases.push({ canvas: c, plot: p });
    });
  }

  function drawPlot(c, p) {
    var height = 80;
    var r = resize(c, height);
    var ctx = r.ctx;
    ctx.clearRect(0, 0, r.width, height);
    drawAxis(ctx, r.width, 0, height);
    var max = Math.max(p.max, 1);
    var yOf = function (v) { return height - 4 - v / max * (height - 20); };
    ctx.strokeStyle = p.what === 'latency' ? '#c2255c' : (p.what === 'pending' ? '#d9480f' : '#1c7ed6');
    ctx.lineWidth = 1.5;
    ctx.beginPath();
    var start = Math.max(lowerBound(p.t, view.from) - 1, 0);
    var end = Math.min(lowerBound(p.t, view.to + 1) + 1, p.t.length);
    var lastX = null, colMax = 0, prev = 0;
    for (var i = start; i < end; i++) {
      var x = Math.round(xOf(p.t[i], r.width));
      if (x === lastX) { colMax = Math.max(colMax, p.v[i]); ctx.lineTo(x, yOf(colMax)); ctx.lineTo(x, yOf(p.v[i])); prev = p.v[i]; continue; }
      if (lastX === null) { ctx.moveTo(Math.max(x, LABEL_W), yOf(p.v[i])); } else { ctx.lineTo(x, yOf(prev)); ctx.lineTo(x, yOf(p.v[i])); }
      lastX = x; colMax = p.v[i]; prev = p.v[i];
    }
    /* A line ends at its last sample: nothing was measured after it. */
    ctx.stroke();
    c.setAttribute('data-line-end', lastX === null ? '' : String(lastX));
    c.setAttribute('data-last-sample', String(Math.round(xOf(p.t[p.t.length - 1], r.width))));
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(0, 0, LABEL_W - 4, height);
    ctx.fillStyle = '#5f6b76';
    ctx.font = '11px system-ui, sans-serif';
    ctx.textBaseline = 'top';
    ctx.fillText('peak ' + (p.unit === 'us' ? human(p.max) : p.max), 6, 6);
    ctx.fillText('0', 6, height - 16);
  }

  /* Markers as a table: a click centres the view on one. */
  function drawMarkerTable() {
    var box = document.getElementById('markers');
    var t = el('table', { 'class': 'markers-table' });
    t.appendChild(el('tr', {}, ['TIME', 'LANE', 'MARKER', 'DETAIL'].map(function (h) { return el('th', { text: h }); })));
    tl.markers.forEach(function (m) {
      var row = el('tr', { 'data-kind': m.kind, 'data-lane': tl.lanes[m.lane].label }, [
        el('td', { text: clock(m.t) }), el('td', { text: tl.lanes[m.lane].label }),
        el('td', { text: (MARKERS[m.kind] || ['', m.kind])[1] }), el('td', { text: m.label })]);
      row.addEventListener('click', function () {
        var half = Math.max((view.to - view.from) / 8, 1000);
        setView(m.t - half, m.t + half);
        canvas.scrollIntoView({ block: 'center' });
      });
      t.appendChild(row);
    });
    box.appendChild(t);
  }

  function redraw() {
    drawTimeline();
    plotCanvases.forEach(function (pc) { drawPlot(pc.canvas, pc.plot); });
  }

  /* Search: the stories are Rust's (kinformer explain's words); this only finds them. */
  var byKey = {};
  data.stories.forEach(function (s) { (byKey[s.k] = byKey[s.k] || []).push(s); });
  var keys = Object.keys(byKey).sort();

  function showStory(key) {
    var box = document.getElementById('story');
    var hints = document.getElementById('suggestions');
    box.textContent = '';
    hints.textContent = '';
    box.removeAttribute('data-key');
    selected = [];
    if (!key) { return; }
    var found = byKey[key];
    if (!found) {
      var near = keys.filter(function (k) { return k.indexOf(key) >= 0; }).slice(0, 40);
      hints.appendChild(el('p', { 'class': 'note', text: near.length
        ? 'No object ' + key + '; keys that contain it:' : 'No object has a key like ' + key + ' in this trace.' }));
      near.forEach(function (k) {
        var b = el('button', { type: 'button', text: k });
        b.addEventListener('click', function () { location.hash = 'key=' + encodeURIComponent(k); });
        hints.appendChild(b);
      });
      return;
    }
    box.setAttribute('data-key', key);
    box.appendChild(el('p', { 'class': 'note', text: 'Its steps are the blue lines on the timeline; a click on a step centres the view on it.' }));
    found.forEach(function (story) {
      box.appendChild(el('h3', { text: story.k + (story.r ? ' (' + story.r + ')' : '') }));
      var t = el('table', { 'class': 'story' });
      story.s.forEach(function (step) {
        selected.push(step[0]);
        var row = el('tr', { 'class': step[2] }, [el('td', { text: step[1] }), el('td', { text: step[2] }), el('td', { text: step[3] })]);
        row.addEventListener('click', function () {
          var half = Math.max((view.to - view.from) / 8, 1000);
          setView(step[0] - half, step[0] + half);
        });
        t.appendChild(row);
      });
      box.appendChild(t);
    });
  }

  function keyFromHash() {
    var m = /^#key=(.*)$/.exec(location.hash);
    return m ? decodeURIComponent(m[1]) : '';
  }

  function wireSearch() {
    var input = document.getElementById('search');
    document.getElementById('search-form').addEventListener('submit', function (e) {
      e.preventDefault();
      var key = input.value.trim();
      if (keyFromHash() === key) { showStory(key); redraw(); } else { location.hash = 'key=' + encodeURIComponent(key); }
    });
    window.addEventListener('hashchange', function () { input.value = keyFromHash(); showStory(input.value); redraw(); });
    input.value = keyFromHash();
    showStory(input.value);
  }

  drawHeader();
  drawSummary();
  drawHandlers();
  drawLegend();
  drawPlotsOnce();
  drawMarkerTable();
  wireTimeline();
  wireSearch();
  redraw();
  /* How long the page took from navigation to drawn (scripts/bench-report reads it). */
  document.documentElement.setAttribute('data-drawn-ms', String(Math.round(performance.now())));
  document.documentElement.setAttribute('data-ready', '1');
})();
