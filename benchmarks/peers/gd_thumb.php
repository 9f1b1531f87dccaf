<?php
// The old thumbnail service's way: GD, PNG out, height from the aspect ratio.
// usage: php gd_thumb.php resampled|scale INPUT OUTPUT WIDTH
[$self, $mode, $input, $output, $width] = $argv;
$width = (int)$width;
$source = imagecreatefromstring(file_get_contents($input));
$sw = imagesx($source);
$sh = imagesy($source);
$height = max(1, (int)round($sh * $width / $sw));
if ($mode === 'resampled') {
    $thumb = imagecreatetruecolor($width, $height);
    imagecopyresampled($thumb, $source, 0, 0, 0, 0, $width, $height, $sw, $sh);
} else {
    $thumb = imagescale($source, $width, $height, IMG_BILINEAR_FIXED);
}
imagepng($thumb, $output);
