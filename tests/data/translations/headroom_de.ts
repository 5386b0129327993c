<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<!-- A test translation, never shipped: two strings of the build's template (build/translations/headroom.ts,
     context Headroom::MainWindow) in German, compiled into tst_windowrules' own ":/i18n" (tests/CMakeLists.txt). -->
<TS version="2.1" language="de_DE">
<context>
    <name>Headroom::MainWindow</name>
    <message>
        <source>Memory per GPU</source>
        <translation>Speicher pro GPU</translation>
    </message>
    <message>
        <source>Open &amp;recent</source>
        <translation>&amp;Zuletzt geöffnet</translation>
    </message>
</context>
</TS>
