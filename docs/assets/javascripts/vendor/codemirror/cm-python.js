/* CodeMirror 6 (MIT), bundled by esbuild from package-lock.json: make editor */
import{a as o,b as r,c as e,d as f}from"./chunk-DMYLC6Z2.js";import"./chunk-YFNAXD7U.js";import"./chunk-BNUVS4TQ.js";import"./chunk-ENWFH2JN.js";export{r as globalCompletion,o as localCompletionSource,f as python,e as pythonLanguage};
