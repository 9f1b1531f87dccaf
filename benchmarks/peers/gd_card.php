<?php
// The postcard work with PHP GD, one process per photo (run two at once with xargs -P 2):
// cover-crop to 1748x1240 with imagecopyresampled, sepia, frame composite, JPEG q90.
// GD has no colour-matrix filter: sepia is approximated by grayscale + colorize (the usual
// GD recipe), and libjpeg's default 4:2:0 chroma cannot be changed from PHP; GD also
// ignores EXIF orientation. usage: php gd_card.php FRAME.png OUTDIR PHOTO
[$self, $framePath, $outDir, $photo] = $argv;
$source = imagecreatefromstring(file_get_contents($photo));
[$w, $h] = [1748, 1240];
$sw = imagesx($source);
$sh = imagesy($source);
$scale = max($w / $sw, $h / $sh);
$cw = (int)round($w / $scale);
$ch = (int)round($h / $scale);
$card = imagecreatetruecolor($w, $h);
imagecopyresampled($card, $source, 0, 0, (int)(($sw - $cw) / 2), (int)(($sh - $ch) / 2), $w, $h, $cw, $ch);
imagefilter($card, IMG_FILTER_GRAYSCALE);
imagefilter($card, IMG_FILTER_COLORIZE, 60, 30, 0);
$frame = imagecreatefrompng($framePath);
imagealphablending($card, true);
imagecopy($card, $frame, 0, 0, 0, 0, $w, $h);
imagejpeg($card, $outDir . '/' . pathinfo($photo, PATHINFO_FILENAME) . '.jpg', 90);
